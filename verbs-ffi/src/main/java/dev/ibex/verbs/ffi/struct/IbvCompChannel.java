package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_comp_channel}: a completion event channel.
 */
public final class IbvCompChannel {
    /** {@code struct ibv_comp_channel} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            U32.withName("fd"),
            U32.withName("refcnt"))
            .withName("ibv_comp_channel");
    /** {@code sizeof(struct ibv_comp_channel)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_comp_channel, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_comp_channel, fd)}. */
    public static final long OFFSET_FD = offset(LAYOUT, "fd");
    /** {@code offsetof(struct ibv_comp_channel, refcnt)}. */
    public static final long OFFSET_REFCNT = offset(LAYOUT, "refcnt");

    private IbvCompChannel() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    /** The fd {@code ibv_get_cq_event} reads; make it non-blocking and add it to epoll. */
    public static int fd(MemorySegment s) {
        return s.get(U32, OFFSET_FD);
    }

    public static int refcnt(MemorySegment s) {
        return s.get(U32, OFFSET_REFCNT);
    }
}
