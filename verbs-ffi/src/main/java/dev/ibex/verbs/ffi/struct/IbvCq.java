package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_cq}: a completion queue.
 */
public final class IbvCq {
    /** {@code struct ibv_cq} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("channel"),
            PTR.withName("cq_context"),
            U32.withName("handle"),
            U32.withName("cqe"),
            opaque("mutex", 40, 8),
            opaque("cond", 48, 8),
            U32.withName("comp_events_completed"),
            U32.withName("async_events_completed"))
            .withName("ibv_cq");
    /** {@code sizeof(struct ibv_cq)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_cq, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_cq, channel)}. */
    public static final long OFFSET_CHANNEL = offset(LAYOUT, "channel");
    /** {@code offsetof(struct ibv_cq, cq_context)}. */
    public static final long OFFSET_CQ_CONTEXT = offset(LAYOUT, "cq_context");
    /** {@code offsetof(struct ibv_cq, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");
    /** {@code offsetof(struct ibv_cq, cqe)}. */
    public static final long OFFSET_CQE = offset(LAYOUT, "cqe");
    /** {@code offsetof(struct ibv_cq, comp_events_completed)}. */
    public static final long OFFSET_COMP_EVENTS_COMPLETED = offset(LAYOUT, "comp_events_completed");
    /** {@code offsetof(struct ibv_cq, async_events_completed)}. */
    public static final long OFFSET_ASYNC_EVENTS_COMPLETED = offset(LAYOUT, "async_events_completed");

    private IbvCq() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment channel(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CHANNEL, IbvCompChannel.SIZE);
    }

    public static MemorySegment cqContext(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_CQ_CONTEXT);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }

    public static int cqe(MemorySegment s) {
        return s.get(U32, OFFSET_CQE);
    }

    public static int compEventsCompleted(MemorySegment s) {
        return s.get(U32, OFFSET_COMP_EVENTS_COMPLETED);
    }

    public static int asyncEventsCompleted(MemorySegment s) {
        return s.get(U32, OFFSET_ASYNC_EVENTS_COMPLETED);
    }
}
