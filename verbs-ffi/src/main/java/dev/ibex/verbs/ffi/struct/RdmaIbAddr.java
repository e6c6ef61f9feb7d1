package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct rdma_ib_addr}: the GIDs and P_Key a resolved {@code rdma_cm_id} uses.
 */
public final class RdmaIbAddr {
    /** {@code struct rdma_ib_addr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGid.LAYOUT.withName("sgid"),
            IbvGid.LAYOUT.withName("dgid"),
            BE16.withName("pkey"),
            pad(6))
            .withName("rdma_ib_addr");
    /** {@code sizeof(struct rdma_ib_addr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct rdma_ib_addr, sgid)}. */
    public static final long OFFSET_SGID = offset(LAYOUT, "sgid");
    /** {@code offsetof(struct rdma_ib_addr, dgid)}. */
    public static final long OFFSET_DGID = offset(LAYOUT, "dgid");
    /** {@code offsetof(struct rdma_ib_addr, pkey)}. */
    public static final long OFFSET_PKEY = offset(LAYOUT, "pkey");

    private RdmaIbAddr() {
    }

    public static MemorySegment sgid(MemorySegment s) {
        return s.asSlice(OFFSET_SGID, IbvGid.SIZE);
    }

    public static MemorySegment dgid(MemorySegment s) {
        return s.asSlice(OFFSET_DGID, IbvGid.SIZE);
    }

    public static int pkey(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_PKEY));
    }
}
