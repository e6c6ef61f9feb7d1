package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_mw_bind}: the argument of {@code ibv_bind_mw} (type 1 windows): work request id, flags, range. */
public final class IbvMwBind {
    /** {@code struct ibv_mw_bind} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            U32.withName("send_flags"),
            pad(4),
            IbvMwBindInfo.LAYOUT.withName("bind_info"))
            .withName("ibv_mw_bind");
    /** {@code sizeof(struct ibv_mw_bind)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_mw_bind, wr_id)}. */
    public static final long OFFSET_WR_ID = offset(LAYOUT, "wr_id");
    /** {@code offsetof(struct ibv_mw_bind, send_flags)}. */
    public static final long OFFSET_SEND_FLAGS = offset(LAYOUT, "send_flags");
    /** {@code offsetof(struct ibv_mw_bind, bind_info)}. */
    public static final long OFFSET_BIND_INFO = offset(LAYOUT, "bind_info");

    private IbvMwBind() {
    }

    public static void wrId(MemorySegment s, long v) {
        s.set(U64, OFFSET_WR_ID, v);
    }

    public static void sendFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_SEND_FLAGS, v);
    }

    /** The embedded {@code struct ibv_mw_bind_info} (write it with {@link IbvMwBindInfo}). */
    public static MemorySegment bindInfo(MemorySegment s) {
        return s.asSlice(OFFSET_BIND_INFO, IbvMwBindInfo.SIZE);
    }
}
