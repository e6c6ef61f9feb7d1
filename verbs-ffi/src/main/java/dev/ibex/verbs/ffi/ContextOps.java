package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.cm.Errno;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvWc;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The data-path verbs of one opened device: {@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_post_send}, {@code ibv_post_recv} and {@code ibv_post_srq_recv}.
 *
 * <p><b>Why through function pointers.</b> These five are {@code static inline} functions in
 * {@code verbs.h}, not symbols of libibverbs.so: the header compiles {@code ibv_post_send(qp, wr, bad)} into
 * {@code qp->context->ops.post_send(qp, wr, bad)}, a direct call into the provider library (mlx5, rxe …)
 * without passing through libibverbs. An FFM binding has no header to inline, so it does the same thing by
 * hand: read the pointers from {@code struct ibv_context.ops} (offsets 96, 104, 168, 208, 216, checked by
 * the layout test) and call them. The pointers are read once, when this object is made for a context; the
 * downcall handles are built once per signature for the whole JVM (a handle that takes the function
 * address as its first argument), so nothing is looked up or allocated per call.
 *
 * <p><b>Return values.</b> As in C: the post verbs and {@code req_notify_cq} return 0 or an errno value
 * directly (they do not set errno; ENOMEM from a post means the queue is full). {@code poll_cq} returns
 * the number of completions, or a negative value on error. Nothing here throws on those results: the data
 * path decides; {@link RdmaErrors#check} turns one into an exception. A slot that the provider left NULL
 * reports {@code EOPNOTSUPP} instead of crashing.
 *
 * <p><b>critical(false).</b> The handles use {@link Linker.Option#critical(boolean) critical(false)}: these
 * calls are short, never block and never call back into Java, so the JVM may skip the thread-state
 * transition (measured on the 2-core build VM: about 8-9 ns instead of 15-17 ns per call, see the README). Set
 * {@code -Dibex.verbs.critical=false} to turn it off, e.g. for a provider whose post verbs may block. Calls
 * that can block ({@code rdma_get_cm_event}, {@code ibv_get_cq_event}, {@code ibv_get_async_event},
 * {@code epoll_wait}) are never critical, even on non-blocking fds: a critical call that blocks would stall
 * every safepoint (GC) of the JVM, and those calls are rare next to the posts and polls.
 *
 * <p>Thread safety: the object is immutable; the verbs themselves are as thread-safe as the provider makes
 * them (all rdma-core providers lock per queue).
 */
public final class ContextOps {
    /** Whether the data-path handles are critical; {@code -Dibex.verbs.critical=false} disables it. */
    public static final boolean CRITICAL = !"false".equals(System.getProperty("ibex.verbs.critical"));

    private static final Linker.Option[] OPTIONS = CRITICAL
            ? new Linker.Option[] {Linker.Option.critical(false)}
            : new Linker.Option[0];
    /** {@code int (*poll_cq)(struct ibv_cq *, int, struct ibv_wc *)}. */
    private static final MethodHandle POLL_CQ = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT, PTR), OPTIONS);
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int)}. */
    private static final MethodHandle REQ_NOTIFY_CQ = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT), OPTIONS);
    /** post_send, post_recv and post_srq_recv share the shape {@code int (*)(void *, void *wr, void **bad_wr)}. */
    private static final MethodHandle POST = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR), OPTIONS);
    private static final int EOPNOTSUPP = Errno.ENOTSUP.number();

    private final MemorySegment context;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private final MemorySegment postSend;
    private final MemorySegment postRecv;
    private final MemorySegment postSrqRecv;

    private ContextOps(MemorySegment context) {
        this.context = context;
        this.pollCq = IbvContext.pollCqFn(context);
        this.reqNotifyCq = IbvContext.reqNotifyCqFn(context);
        this.postSend = IbvContext.postSendFn(context);
        this.postRecv = IbvContext.postRecvFn(context);
        this.postSrqRecv = IbvContext.postSrqRecvFn(context);
    }

    /**
     * Reads the function pointers of {@code context} (a {@code struct ibv_context *} from
     * {@link Devices#openDevice} or {@code rdma_cm_id.verbs}). Make one per opened context and keep it
     * with the context; it is valid until {@code ibv_close_device}.
     */
    public static ContextOps of(MemorySegment context) {
        if (context.address() == 0) {
            throw new IllegalArgumentException("NULL ibv_context");
        }
        return new ContextOps(context.reinterpret(IbvContext.SIZE));
    }

    /** The context these ops belong to. */
    public MemorySegment context() {
        return context;
    }

    /**
     * {@code ibv_poll_cq(cq, numEntries, wc)}.
     *
     * @param wc an array of at least {@code numEntries} {@link IbvWc} (checked: C would write past it)
     * @return completions written (less than {@code numEntries} means the CQ is empty), or negative on error
     */
    public int pollCq(MemorySegment cq, int numEntries, MemorySegment wc) {
        if (numEntries < 0 || wc.byteSize() < numEntries * IbvWc.SIZE) {
            throw new IllegalArgumentException("wc array holds " + wc.byteSize() / IbvWc.SIZE + " entries, asked for " + numEntries);
        }
        Pointers.require(cq, "cq", "ibv_poll_cq");
        if (pollCq.address() == 0) {
            return -EOPNOTSUPP;
        }
        try {
            return (int) POLL_CQ.invokeExact(pollCq, cq, numEntries, wc);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_req_notify_cq(cq, solicitedOnly)}: arms the CQ for one event on its channel. Arm, then
     * poll until empty, so no completion slips between the two.
     *
     * @return 0, or an errno value
     */
    public int reqNotifyCq(MemorySegment cq, boolean solicitedOnly) {
        Pointers.require(cq, "cq", "ibv_req_notify_cq");
        if (reqNotifyCq.address() == 0) {
            return EOPNOTSUPP;
        }
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(reqNotifyCq, cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_post_send(qp, wr, badWr)}: posts the chain of {@code ibv_send_wr} starting at {@code wr}.
     *
     * @param badWr 8 bytes that receive the address of the first WR that failed
     * @return 0, or an errno value (ENOMEM: send queue full; EINVAL: bad WR)
     */
    public int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post(postSend, qp, wr, badWr);
    }

    /** {@code ibv_post_recv(qp, wr, badWr)}: like {@link #postSend} for a chain of {@code ibv_recv_wr}. */
    public int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        return post(postRecv, qp, wr, badWr);
    }

    /** {@code ibv_post_srq_recv(srq, wr, badWr)}. */
    public int postSrqRecv(MemorySegment srq, MemorySegment wr, MemorySegment badWr) {
        return post(postSrqRecv, srq, wr, badWr);
    }

    private static int post(MemorySegment fn, MemorySegment queue, MemorySegment wr, MemorySegment badWr) {
        if (queue.address() == 0) {
            throw new IllegalArgumentException("NULL queue passed to a post verb");
        }
        if (badWr.byteSize() < 8) {
            throw new IllegalArgumentException("bad_wr needs 8 bytes");
        }
        if (fn.address() == 0) {
            return EOPNOTSUPP;
        }
        try {
            return (int) POST.invokeExact(fn, queue, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
