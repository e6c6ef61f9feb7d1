package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static dev.ibex.verbs.ffi.struct.Layouts.SIZE_T;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ibex.verbs.ffi.constant.IbvAccessFlags;
import dev.ibex.verbs.ffi.struct.IbvMr;
import dev.ibex.verbs.ffi.struct.IbvPd;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Protection domains and the memory registered in them: {@code ibv_alloc_pd}, {@code ibv_dealloc_pd},
 * {@code ibv_reg_mr}, {@code ibv_reg_mr_iova2} and {@code ibv_dereg_mr}. Together because a region belongs to the PD
 * it was registered in, and only that PD's QPs can use its keys; windows onto a region are {@link MemoryWindows}.
 */
public final class ProtectionDomains {
    private ProtectionDomains() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle ALLOC_PD = D.errno("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvPd.LAYOUT), PTR));
        static final MethodHandle DEALLOC_PD = D.errno("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle REG_MR = D.errno("ibv_reg_mr",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMr.LAYOUT), PTR, PTR, SIZE_T, JAVA_INT));
        static final MethodHandle REG_MR_IOVA2 = D.optionalErrno("ibv_reg_mr_iova2",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMr.LAYOUT), PTR, PTR, SIZE_T, JAVA_LONG, JAVA_INT));
        static final MethodHandle DEREG_MR = D.errno("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, PTR));
    }

    /**
     * {@code ibv_alloc_pd}.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @return the {@code struct ibv_pd}
     */
    public static MemorySegment allocPd(MemorySegment context) {
        return pointerResult("ibv_alloc_pd", H.ALLOC_PD, context);
    }

    /**
     * {@code ibv_dealloc_pd}: fails with EBUSY while QPs, MRs, AHs or SRQs use it.
     *
     * @param pd what {@link #allocPd} returned
     */
    public static void deallocPd(MemorySegment pd) {
        intResult("ibv_dealloc_pd", H.DEALLOC_PD, pd);
    }

    /**
     * {@code ibv_reg_mr} over all of {@code memory}, as the {@code verbs.h} macro does it: the exported
     * {@code ibv_reg_mr}, or {@code ibv_reg_mr_iova2} (iova = address) when {@code access} has bits in
     * {@code IBV_ACCESS_OPTIONAL_RANGE} such as {@code IBV_ACCESS_RELAXED_ORDERING}.
     *
     * @param pd the protection domain
     * @param memory the memory to register, all of it
     * @param access {@code IbvAccessFlags} bits; remote write/atomic need {@code IBV_ACCESS_LOCAL_WRITE}
     * @return the {@code struct ibv_mr}, with its keys
     */
    public static MemorySegment regMr(MemorySegment pd, MemorySegment memory, int access) {
        Pointers.require(pd, "pd", "ibv_reg_mr");
        if ((access & IbvAccessFlags.IBV_ACCESS_OPTIONAL_RANGE) != 0) {
            return regMrIova2(pd, memory, memory.address(), access);
        }
        CallState cs = CallState.current();
        MemorySegment mr;
        try {
            mr = (MemorySegment) H.REG_MR.invokeExact(cs.capture, pd, memory, memory.byteSize(), access);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (mr.address() == 0) {
            throw RdmaErrors.failure("ibv_reg_mr", cs.errno());
        }
        return mr;
    }

    /**
     * Whether {@code ibv_reg_mr_iova2} (IBVERBS_1.8, rdma-core 29+) is exported here.
     *
     * @return whether {@link #regMrIova2} can be called
     */
    public static boolean hasRegMrIova2() {
        return Libraries.ibverbs().hasSymbol("ibv_reg_mr_iova2");
    }

    /**
     * {@code ibv_reg_mr_iova2}: registers {@code memory}, addressed remotely as {@code iova}. Optional symbol.
     *
     * @param pd the protection domain
     * @param memory the memory to register, all of it
     * @param iova the address the remote side uses for its first byte
     * @param access {@code IbvAccessFlags} bits
     * @return the {@code struct ibv_mr}, with its keys
     */
    public static MemorySegment regMrIova2(MemorySegment pd, MemorySegment memory, long iova, int access) {
        Pointers.require(pd, "pd", "ibv_reg_mr_iova2");
        CallState cs = CallState.current();
        MemorySegment mr;
        try {
            mr = (MemorySegment) H.REG_MR_IOVA2.invokeExact(cs.capture, pd, memory, memory.byteSize(), iova, access);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (mr.address() == 0) {
            throw RdmaErrors.failure("ibv_reg_mr_iova2", cs.errno());
        }
        return mr;
    }

    /**
     * {@code ibv_dereg_mr}.
     *
     * @param mr what {@link #regMr} or {@link #regMrIova2} returned
     */
    public static void deregMr(MemorySegment mr) {
        intResult("ibv_dereg_mr", H.DEREG_MR, mr);
    }
}
