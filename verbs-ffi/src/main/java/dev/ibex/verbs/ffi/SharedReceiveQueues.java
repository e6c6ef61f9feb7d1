package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static dev.ibex.verbs.ffi.IbVerbs.createThroughExtendedOp;
import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.verbs.ffi.struct.IbvSrq;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Shared receive queues: {@code ibv_create_srq}, {@code ibv_create_srq_ex} (through the context's extended op, for a
 * tag-matching SRQ), {@code ibv_modify_srq}, {@code ibv_query_srq} and {@code ibv_destroy_srq}. Posting to an SRQ is
 * {@link ContextOps#postSrqRecv}.
 */
public final class SharedReceiveQueues {
    private SharedReceiveQueues() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle CREATE_SRQ = D.errno("ibv_create_srq",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvSrq.LAYOUT), PTR, PTR));
        static final MethodHandle MODIFY_SRQ = D.errno("ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle QUERY_SRQ = D.errno("ibv_query_srq", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle DESTROY_SRQ = D.errno("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, PTR));
        /** {@code verbs_context.create_srq_ex(context, srq_init_attr_ex)}: NULL and errno on failure. */
        static final MethodHandle VCTX_CREATE_SRQ_EX = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvSrq.LAYOUT), PTR, PTR));
    }

    /**
     * {@code ibv_create_srq}.
     *
     * @param pd the protection domain
     * @param srqInitAttr the {@code struct ibv_srq_init_attr}; {@code attr} returns the granted sizes
     * @return the {@code struct ibv_srq}
     */
    public static MemorySegment createSrq(MemorySegment pd, MemorySegment srqInitAttr) {
        return pointerResult("ibv_create_srq", H.CREATE_SRQ, pd, srqInitAttr);
    }

    /**
     * {@code ibv_create_srq_ex} for a request that needs the extended op (a TM-SRQ): {@code verbs_context.create_srq_ex}
     * (a provider without it has libibverbs' dummy op, which answers EOPNOTSUPP).
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param initAttrEx the {@code struct ibv_srq_init_attr_ex}
     * @return the {@code struct ibv_srq}
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the context has no extended op, or what the device reports
     */
    public static MemorySegment createSrqEx(MemorySegment context, MemorySegment initAttrEx) {
        return createThroughExtendedOp("ibv_create_srq_ex", "srq_init_attr_ex", VerbsContext.OFFSET_CREATE_SRQ_EX,
                H.VCTX_CREATE_SRQ_EX, context, initAttrEx);
    }

    /**
     * {@code ibv_modify_srq} with an {@code IbvSrqAttrMask} mask (re-arm the limit with {@code IBV_SRQ_LIMIT}).
     *
     * @param srq the SRQ
     * @param srqAttr the {@code struct ibv_srq_attr}
     * @param attrMask the fields of {@code srqAttr} to apply
     */
    public static void modifySrq(MemorySegment srq, MemorySegment srqAttr, int attrMask) {
        Pointers.require(srq, "srq", "ibv_modify_srq");
        Pointers.require(srqAttr, "srq_attr", "ibv_modify_srq");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.MODIFY_SRQ.invokeExact(cs.capture, srq, srqAttr, attrMask);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_modify_srq", rc, cs);
    }

    /**
     * {@code ibv_query_srq}.
     *
     * @param srq the SRQ
     * @param srqAttr the {@code struct ibv_srq_attr} to fill
     */
    public static void querySrq(MemorySegment srq, MemorySegment srqAttr) {
        intResult("ibv_query_srq", H.QUERY_SRQ, srq, srqAttr);
    }

    /**
     * {@code ibv_destroy_srq}.
     *
     * @param srq the SRQ
     */
    public static void destroySrq(MemorySegment srq) {
        intResult("ibv_destroy_srq", H.DESTROY_SRQ, srq);
    }
}
