package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_event_channel}: a CM event channel (just its fd).
 */
public final class RdmaEventChannel {
    /** {@code struct rdma_event_channel} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("fd"))
            .withName("rdma_event_channel");
    /** {@code sizeof(struct rdma_event_channel)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_event_channel, fd)}. */
    public static final long OFFSET_FD = offset(LAYOUT, "fd");

    private RdmaEventChannel() {
    }

    /** The fd {@code rdma_get_cm_event} reads; make it non-blocking and add it to epoll. */
    public static int fd(MemorySegment s) {
        return s.get(U32, OFFSET_FD);
    }
}
