package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.cm.Errno;
import dev.ibex.verbs.ffi.struct.IbvCompChannel;
import dev.ibex.verbs.ffi.struct.IbvCq;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Completion queues and the channels their events arrive on: {@code ibv_create_comp_channel}, {@code ibv_create_cq},
 * {@code ibv_get_cq_event}, {@code ibv_ack_cq_events} and their destroy verbs. Polling and arming a CQ are data-path
 * verbs, in {@link ContextOps}.
 */
public final class CompletionQueues {
    private CompletionQueues() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle CREATE_COMP_CHANNEL = D.errno("ibv_create_comp_channel",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvCompChannel.LAYOUT), PTR));
        static final MethodHandle DESTROY_COMP_CHANNEL = D.errno("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle CREATE_CQ = D.errno("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvCq.LAYOUT), PTR, JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle DESTROY_CQ = D.errno("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle GET_CQ_EVENT = D.errno("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
        static final MethodHandle ACK_CQ_EVENTS = D.plain("ibv_ack_cq_events", FunctionDescriptor.ofVoid(PTR, JAVA_INT));
    }

    /**
     * {@code ibv_create_comp_channel}: its fd ({@code IbvCompChannel.fd}) is blocking until made non-blocking.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @return the {@code struct ibv_comp_channel}
     */
    public static MemorySegment createCompChannel(MemorySegment context) {
        return pointerResult("ibv_create_comp_channel", H.CREATE_COMP_CHANNEL, context);
    }

    /**
     * {@code ibv_destroy_comp_channel}: fails with EBUSY while a CQ uses it.
     *
     * @param channel what {@link #createCompChannel} returned
     */
    public static void destroyCompChannel(MemorySegment channel) {
        intResult("ibv_destroy_comp_channel", H.DESTROY_COMP_CHANNEL, channel);
    }

    /**
     * {@code ibv_create_cq}.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param cqe minimum number of entries
     * @param cqContext returned by {@link #getCqEvent} as {@code cq->cq_context}; may be NULL
     * @param channel completion channel, or NULL for a polled-only CQ
     * @param compVector {@code 0 <= compVector < context->num_comp_vectors}
     * @return the {@code struct ibv_cq}
     */
    public static MemorySegment createCq(MemorySegment context, int cqe, MemorySegment cqContext, MemorySegment channel, int compVector) {
        Pointers.require(context, "context", "ibv_create_cq");
        if (cqe < 1) {
            throw new IllegalArgumentException("cqe must be at least 1, got " + cqe);
        }
        CallState cs = CallState.current();
        MemorySegment cq;
        try {
            cq = (MemorySegment) H.CREATE_CQ.invokeExact(cs.capture, context, cqe, cqContext, channel, compVector);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (cq.address() == 0) {
            throw RdmaErrors.failure("ibv_create_cq", cs.errno());
        }
        return cq;
    }

    /**
     * {@code ibv_destroy_cq}: ack all its events first ({@link #ackCqEvents}) or this blocks forever.
     *
     * @param cq what {@link #createCq} returned
     */
    public static void destroyCq(MemorySegment cq) {
        intResult("ibv_destroy_cq", H.DESTROY_CQ, cq);
    }

    /**
     * {@code ibv_get_cq_event}: the CQ that has a completion event, or {@link MemorySegment#NULL} when a
     * non-blocking channel has none (EAGAIN/EINTR). Every event must be acked with {@link #ackCqEvents};
     * the CQ is disarmed until {@code ibv_req_notify_cq}. Its {@code cq_context} is {@code IbvCq.cqContext}.
     *
     * @param channel the completion channel
     * @return the CQ, or NULL
     */
    public static MemorySegment getCqEvent(MemorySegment channel) {
        Pointers.require(channel, "channel", "ibv_get_cq_event");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.GET_CQ_EVENT.invokeExact(cs.capture, channel, cs.clearedOut0(), cs.clearedOut1());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0) {
            int errno = RdmaErrors.errnoOf(rc, cs.errno());
            if (errno == Errno.EAGAIN.number() || errno == Errno.EINTR.number()) {
                return MemorySegment.NULL;
            }
            throw RdmaErrors.failure("ibv_get_cq_event", errno);
        }
        return cs.pointer0().reinterpret(IbvCq.SIZE);
    }

    /**
     * {@code ibv_ack_cq_events}: takes a mutex, so ack in batches.
     *
     * @param cq the CQ the events were for
     * @param count how many events of {@link #getCqEvent} to ack
     */
    public static void ackCqEvents(MemorySegment cq, int count) {
        Pointers.require(cq, "cq", "ibv_ack_cq_events");
        if (count < 0) {
            throw new IllegalArgumentException("negative event count: " + count);
        }
        try {
            H.ACK_CQ_EVENTS.invokeExact(cq, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
