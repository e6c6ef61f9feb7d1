package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.cm.Errno;
import dev.ibex.verbs.ffi.struct.IbvContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A context's asynchronous events (port up or down, QP and CQ errors, SRQ limit reached …):
 * {@code ibv_get_async_event} and {@code ibv_ack_async_event}, read when the event loop sees the context's async fd
 * readable.
 */
public final class AsyncEvents {
    private AsyncEvents() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle GET_ASYNC_EVENT = D.errno("ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle ACK_ASYNC_EVENT = D.plain("ibv_ack_async_event", FunctionDescriptor.ofVoid(PTR));
    }

    /**
     * {@code ibv_get_async_event} into {@code event} (a {@code struct ibv_async_event}).
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param event the {@code struct ibv_async_event} to fill
     * @return false when a non-blocking context fd ({@code IbvContext.asyncFd}) has no event (EAGAIN/EINTR)
     */
    public static boolean getAsyncEvent(MemorySegment context, MemorySegment event) {
        Pointers.require(context, "context", "ibv_get_async_event");
        Pointers.require(event, "event", "ibv_get_async_event");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.GET_ASYNC_EVENT.invokeExact(cs.capture, context, event);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0) {
            int errno = RdmaErrors.errnoOf(rc, cs.errno());
            if (errno == Errno.EAGAIN.number() || errno == Errno.EINTR.number()) {
                return false;
            }
            throw RdmaErrors.failure("ibv_get_async_event", errno);
        }
        return true;
    }

    /**
     * {@code ibv_ack_async_event}: every event must be acked before its object is destroyed.
     *
     * @param event what {@link #getAsyncEvent} filled
     */
    public static void ackAsyncEvent(MemorySegment event) {
        Pointers.require(event, "event", "ibv_ack_async_event");
        try {
            H.ACK_ASYNC_EVENT.invokeExact(event);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
