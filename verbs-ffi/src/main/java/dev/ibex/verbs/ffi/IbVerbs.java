package dev.ibex.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * libibverbs ({@code libibverbs.so.1}, {@code verbs.h}): the library, the functions bound from it, and the checks its
 * verb families share.
 *
 * <p>The verbs are split by family, as rdma-core splits its sources: {@link Devices} (device list, open and close,
 * device and port queries), {@link ProtectionDomains} (PDs and memory registration), {@link MemoryWindows},
 * {@link CompletionQueues} (completion channels and CQs), {@link QueuePairs}, {@link SharedReceiveQueues},
 * {@link AddressHandles}, {@link Multicast}, {@link AsyncEvents}, {@link EnumStrings} and {@link ForkSupport}. Each
 * binds its functions once, in a holder class of its own, on first use. The data-path verbs {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_post_srq_recv}, {@code ibv_poll_cq} and {@code ibv_req_notify_cq} are
 * {@code static inline} in {@code verbs.h} and not exported; they are in {@link ContextOps}.
 *
 * <p>Each verb method calls the C function of the same name and throws {@link RdmaException} (verb, errno, advice)
 * when it fails, whatever the verb's return convention (NULL + errno, -1 + errno, or the errno value itself): the
 * checks here make that one rule. Pointer results come back as segments sized to their struct.
 */
public final class IbVerbs {
    private IbVerbs() {
    }

    private static final class H {
        static final Downcalls D = Downcalls.of(Libraries.ibverbs());
    }

    /** The holders of the families that bind libibverbs symbols: {@link #functions()} initialises them all. */
    private static final List<Class<?>> FAMILIES = List.of(Devices.H.class, ProtectionDomains.H.class,
            CompletionQueues.H.class, QueuePairs.H.class, SharedReceiveQueues.H.class, AddressHandles.H.class,
            Multicast.H.class, AsyncEvents.H.class, EnumStrings.H.class, ForkSupport.H.class);

    /**
     * Every libibverbs function these bindings declare, and whether it resolved here.
     *
     * @return the functions, in the order they were bound
     */
    public static List<Downcalls.Function> functions() {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (Class<?> holder : FAMILIES) {
            try {
                lookup.ensureInitialized(holder);
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
        return H.D.functions();
    }

    /**
     * The library (for {@link NativeLibrary#isAvailable()} checks).
     *
     * @return libibverbs
     */
    public static NativeLibrary library() {
        return Libraries.ibverbs();
    }

    /** What every family binds its functions with, so that {@link #functions()} lists them all. */
    static Downcalls downcalls() {
        return H.D;
    }

    /** Port numbers are a {@code uint8_t} from 1: a wider int would be cut silently by the downcall. */
    static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, got " + port);
        }
    }

    /** Throws unless {@code rc} is 0, for verbs that return the errno value, {@code -errno} or -1 and set errno. */
    static void check(String verb, int rc, CallState cs) {
        if (rc != 0) {
            throw RdmaErrors.failure(verb, RdmaErrors.errnoOf(rc, cs.errno()));
        }
    }

    /**
     * {@code verbs_get_ctx_op(context, op)} for the op at {@code offset} of {@code struct verbs_context}: the extended
     * op when {@code abi_compat} marks the context as extended, {@code sz} covers the op and the pointer is set; NULL
     * otherwise.
     */
    static MemorySegment extendedOp(MemorySegment context, long offset) {
        MemorySegment ctx = context.reinterpret(IbvContext.SIZE);
        if (IbvContext.abiCompat(ctx) != IbvContext.VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment vctx = MemorySegment.ofAddress(ctx.address() - VerbsContext.CONTEXT_OFFSET).reinterpret(VerbsContext.SIZE);
        if (VerbsContext.sz(vctx) < VerbsContext.SIZE - offset) {
            return MemorySegment.NULL;
        }
        return vctx.get(ADDRESS, offset);
    }

    /**
     * {@code ibv_create_qp_ex} and {@code ibv_create_srq_ex}: calls the context's extended op at {@code offset} through
     * {@code h} ({@code (op, capture, context, init_attr_ex)}, NULL and errno on failure). A context without the op
     * throws ENOTSUP, as does libibverbs' dummy op.
     */
    static MemorySegment createThroughExtendedOp(String verb, String attr, long offset, MethodHandle h,
            MemorySegment context, MemorySegment initAttrEx) {
        Pointers.require(context, "context", verb);
        Pointers.require(initAttrEx, attr, verb);
        MemorySegment fn = extendedOp(context, offset);
        if (fn.address() == 0) {
            throw RdmaErrors.failure(verb, Errno.ENOTSUP.number());
        }
        CallState cs = CallState.current();
        MemorySegment p;
        try {
            p = (MemorySegment) h.invokeExact(fn, cs.capture, context, initAttrEx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (p.address() == 0) {
            throw RdmaErrors.failure(verb, cs.errno());
        }
        return p;
    }

    /** Calls {@code h} (an errno handle) on one non-NULL pointer; a NULL result throws with the captured errno. */
    static MemorySegment pointerResult(String verb, MethodHandle h, MemorySegment a) {
        Pointers.require(a, "argument 1", verb);
        CallState cs = CallState.current();
        MemorySegment p;
        try {
            p = (MemorySegment) h.invokeExact(cs.capture, a);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (p.address() == 0) {
            throw RdmaErrors.failure(verb, cs.errno());
        }
        return p;
    }

    /** {@link #pointerResult(String, MethodHandle, MemorySegment)} for two non-NULL pointers. */
    static MemorySegment pointerResult(String verb, MethodHandle h, MemorySegment a, MemorySegment b) {
        Pointers.require(a, "argument 1", verb);
        Pointers.require(b, "argument 2", verb);
        CallState cs = CallState.current();
        MemorySegment p;
        try {
            p = (MemorySegment) h.invokeExact(cs.capture, a, b);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (p.address() == 0) {
            throw RdmaErrors.failure(verb, cs.errno());
        }
        return p;
    }

    /** Calls {@code h} (an errno handle) on one non-NULL pointer; a result other than 0 throws, as {@link #check}. */
    static void intResult(String verb, MethodHandle h, MemorySegment a) {
        Pointers.require(a, "argument 1", verb);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, a);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }

    /** {@link #intResult(String, MethodHandle, MemorySegment)} for two non-NULL pointers. */
    static void intResult(String verb, MethodHandle h, MemorySegment a, MemorySegment b) {
        Pointers.require(a, "argument 1", verb);
        Pointers.require(b, "argument 2", verb);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, a, b);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }
}
