package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvMr;
import dev.ibex.verbs.ffi.struct.IbvMw;
import dev.ibex.verbs.ffi.struct.IbvMwBind;
import dev.ibex.verbs.ffi.struct.IbvMwBindInfo;
import dev.ibex.verbs.ffi.struct.IbvPd;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Memory windows: {@code ibv_alloc_mw}, {@code ibv_dealloc_mw} and {@code ibv_bind_mw}. They are {@code static inline}
 * in {@code verbs.h}, not exported, so, like the data-path verbs of {@link ContextOps}, they call the provider through
 * the context's ops table: one downcall handle per signature serves every context and provider.
 */
public final class MemoryWindows {
    private MemoryWindows() {
    }

    private static final class H {
        /** {@code ops.alloc_mw(pd, type)}: NULL and errno on failure. */
        static final MethodHandle ALLOC_MW_FN = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMw.LAYOUT), PTR, JAVA_INT));
        /** {@code ops.dealloc_mw(mw)} and {@code ops.bind_mw(qp, mw, mw_bind)}: 0 or an errno value. */
        static final MethodHandle DEALLOC_MW_FN = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle BIND_MW_FN = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
    }

    /**
     * {@code ibv_alloc_mw(pd, type)} ({@code pd->context->ops.alloc_mw}).
     *
     * @param pd the protection domain
     * @param type {@code IBV_MW_TYPE_1} (1) or {@code IBV_MW_TYPE_2} (2)
     * @return the {@code struct ibv_mw}
     * @throws RdmaException ENOTSUP when the provider has no memory windows (the slot is NULL, as verbs.h's
     *     EOPNOTSUPP), or the provider's errno
     */
    public static MemorySegment allocMw(MemorySegment pd, int type) {
        Pointers.require(pd, "pd", "ibv_alloc_mw");
        MemorySegment fn = IbvContext.allocMwFn(IbvPd.context(pd));
        if (fn.address() == 0) {
            throw new RdmaException("ibv_alloc_mw", Errno.ENOTSUP,
                    "the device's provider library has no memory windows (ops.alloc_mw is NULL)");
        }
        CallState cs = CallState.current();
        MemorySegment mw;
        try {
            mw = (MemorySegment) H.ALLOC_MW_FN.invokeExact(fn, cs.capture, pd, type);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (mw.address() == 0) {
            throw RdmaErrors.failure("ibv_alloc_mw", cs.errno());
        }
        return mw;
    }

    /**
     * {@code ibv_dealloc_mw(mw)} ({@code mw->context->ops.dealloc_mw}): ends any binding.
     *
     * @param mw what {@link #allocMw} returned
     */
    public static void deallocMw(MemorySegment mw) {
        Pointers.require(mw, "mw", "ibv_dealloc_mw");
        MemorySegment fn = IbvContext.deallocMwFn(IbvMw.context(mw));
        int rc;
        try {
            rc = (int) H.DEALLOC_MW_FN.invokeExact(fn, mw);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0) {
            throw RdmaErrors.failure("ibv_dealloc_mw", Math.abs(rc));
        }
    }

    /**
     * {@code ibv_bind_mw(qp, mw, mwBind)}: binds a type 1 window (a work request on {@code qp}; its completion
     * arrives on the send CQ) and updates {@code mw->rkey}. The checks verbs.h makes before calling the provider are
     * made here too: a type 2 window, or a range without a region, is EINVAL; a region of another PD is EPERM.
     *
     * @param qp the QP whose send queue carries the bind
     * @param mw the window
     * @param mwBind the {@code struct ibv_mw_bind}: WR id, send flags, region, range and access
     * @return 0, or an errno value (as the C function)
     */
    public static int bindMw(MemorySegment qp, MemorySegment mw, MemorySegment mwBind) {
        Pointers.require(qp, "qp", "ibv_bind_mw");
        Pointers.require(mw, "mw", "ibv_bind_mw");
        if (IbvMw.type(mw) != 1) {
            return Errno.EINVAL.number();
        }
        MemorySegment info = IbvMwBind.bindInfo(mwBind);
        MemorySegment mr = IbvMwBindInfo.mr(info);
        if (mr.address() == 0 && (IbvMwBindInfo.addr(info) != 0 || IbvMwBindInfo.length(info) != 0)) {
            return Errno.EINVAL.number();
        }
        if (mr.address() != 0 && IbvMr.pd(mr.reinterpret(IbvMr.SIZE)).address() != IbvMw.pd(mw).address()) {
            return Errno.EPERM.number();
        }
        MemorySegment fn = IbvContext.bindMwFn(IbvMw.context(mw));
        try {
            return (int) H.BIND_MW_FN.invokeExact(fn, qp, mw, mwBind);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
