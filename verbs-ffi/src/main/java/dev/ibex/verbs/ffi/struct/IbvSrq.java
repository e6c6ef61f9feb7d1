package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_srq}: a shared receive queue.
 */
public final class IbvSrq {
    /** {@code struct ibv_srq} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("srq_context"),
            PTR.withName("pd"),
            U32.withName("handle"),
            pad(4),
            opaque("mutex", 40, 8),
            opaque("cond", 48, 8),
            U32.withName("events_completed"),
            pad(4))
            .withName("ibv_srq");
    /** {@code sizeof(struct ibv_srq)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_srq, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_srq, srq_context)}. */
    public static final long OFFSET_SRQ_CONTEXT = offset(LAYOUT, "srq_context");
    /** {@code offsetof(struct ibv_srq, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_srq, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");
    /** {@code offsetof(struct ibv_srq, events_completed)}. */
    public static final long OFFSET_EVENTS_COMPLETED = offset(LAYOUT, "events_completed");

    private IbvSrq() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment srqContext(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_SRQ_CONTEXT);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }

    public static int eventsCompleted(MemorySegment s) {
        return s.get(U32, OFFSET_EVENTS_COMPLETED);
    }
}
