package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_route}: the resolved route of an id.
 */
public final class RdmaRoute {
    /** {@code struct rdma_route} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            RdmaAddr.LAYOUT.withName("addr"),
            PTR.withName("path_rec"),
            U32.withName("num_paths"),
            pad(4))
            .withName("rdma_route");
    /** {@code sizeof(struct rdma_route)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_route, addr)}. */
    public static final long OFFSET_ADDR = offset(LAYOUT, "addr");
    /** {@code offsetof(struct rdma_route, path_rec)}. */
    public static final long OFFSET_PATH_REC = offset(LAYOUT, "path_rec");
    /** {@code offsetof(struct rdma_route, num_paths)}. */
    public static final long OFFSET_NUM_PATHS = offset(LAYOUT, "num_paths");

    private RdmaRoute() {
    }

    public static MemorySegment addr(MemorySegment s) {
        return s.asSlice(OFFSET_ADDR, RdmaAddr.SIZE);
    }

    public static MemorySegment pathRec(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_PATH_REC);
    }

    public static int numPaths(MemorySegment s) {
        return s.get(U32, OFFSET_NUM_PATHS);
    }
}
