package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static dev.ibex.verbs.ffi.IbVerbs.createThroughExtendedOp;
import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvQpEx;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Queue pairs: {@code ibv_create_qp}, {@code ibv_create_qp_ex} (through the context's extended op, as {@code verbs.h}
 * does), {@code ibv_qp_to_qp_ex}, {@code ibv_modify_qp}, {@code ibv_query_qp} and {@code ibv_destroy_qp}. Posting is in
 * {@link ContextOps} and {@link QpExOps}; joining a multicast group in {@link Multicast}.
 */
public final class QueuePairs {
    private QueuePairs() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
        static final MethodHandle CREATE_QP = D.errno("ibv_create_qp",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQp.LAYOUT), PTR, PTR));
        static final MethodHandle MODIFY_QP = D.errno("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle QUERY_QP = D.errno("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT, PTR));
        static final MethodHandle DESTROY_QP = D.errno("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, PTR));
        /** {@code verbs_context.create_qp_ex(context, qp_init_attr_ex)}: NULL and errno on failure. */
        static final MethodHandle VCTX_CREATE_QP_EX = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQp.LAYOUT), PTR, PTR));
        static final MethodHandle QP_TO_QP_EX = D.optionalPlain("ibv_qp_to_qp_ex",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQpEx.LAYOUT), PTR));
        /** Looked up once: a dlsym per QP created showed in the VM's connection setup profile (issue 18). */
        static final boolean HAS_QP_TO_QP_EX = D.present("ibv_qp_to_qp_ex");
    }

    /**
     * {@code ibv_create_qp}: the QP starts in RESET; {@code initAttr.cap} returns the granted sizes.
     *
     * @param pd the protection domain
     * @param initAttr the {@code struct ibv_qp_init_attr}
     * @return the {@code struct ibv_qp}
     */
    public static MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        return pointerResult("ibv_create_qp", H.CREATE_QP, pd, initAttr);
    }

    /**
     * {@code ibv_create_qp_ex}: a QP made from a {@code struct ibv_qp_init_attr_ex} through the context's extended op
     * ({@code verbs_context.create_qp_ex}); the QP starts in RESET and {@code initAttrEx.cap} returns the granted sizes.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param initAttrEx the {@code struct ibv_qp_init_attr_ex}, its PD included
     * @return the {@code struct ibv_qp}
     * @throws dev.ibex.cm.RdmaException EOPNOTSUPP when the context has no extended op, or what the provider reports
     *     (e.g. EOPNOTSUPP/EINVAL for send-ops flags it cannot do)
     */
    public static MemorySegment createQpEx(MemorySegment context, MemorySegment initAttrEx) {
        return createThroughExtendedOp("ibv_create_qp_ex", "qp_init_attr_ex", VerbsContext.OFFSET_CREATE_QP_EX,
                H.VCTX_CREATE_QP_EX, context, initAttrEx);
    }

    /**
     * {@code ibv_qp_to_qp_ex}: the {@code struct ibv_qp_ex} of a QP made by {@code ibv_create_qp_ex}.
     *
     * @param qp the QP
     * @return the extended QP, or NULL when libibverbs predates it (before 1.6) or the QP has none
     */
    public static MemorySegment qpToQpEx(MemorySegment qp) {
        Pointers.require(qp, "qp", "ibv_qp_to_qp_ex");
        if (!H.HAS_QP_TO_QP_EX) {
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) H.QP_TO_QP_EX.invokeExact(qp);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_modify_qp} with an {@code IbvQpAttrMask} mask.
     *
     * @param qp the QP
     * @param attr the {@code struct ibv_qp_attr}
     * @param attrMask the fields of {@code attr} to apply
     */
    public static void modifyQp(MemorySegment qp, MemorySegment attr, int attrMask) {
        Pointers.require(qp, "qp", "ibv_modify_qp");
        Pointers.require(attr, "attr", "ibv_modify_qp");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.MODIFY_QP.invokeExact(cs.capture, qp, attr, attrMask);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_modify_qp", rc, cs);
    }

    /**
     * {@code ibv_query_qp}: fills {@code attr} ({@code ibv_qp_attr}) and {@code initAttr} ({@code ibv_qp_init_attr}).
     *
     * @param qp the QP
     * @param attr the {@code struct ibv_qp_attr} to fill
     * @param attrMask the fields asked for
     * @param initAttr the {@code struct ibv_qp_init_attr} to fill
     */
    public static void queryQp(MemorySegment qp, MemorySegment attr, int attrMask, MemorySegment initAttr) {
        Pointers.require(qp, "qp", "ibv_query_qp");
        Pointers.require(attr, "attr", "ibv_query_qp");
        Pointers.require(initAttr, "init_attr", "ibv_query_qp");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.QUERY_QP.invokeExact(cs.capture, qp, attr, attrMask, initAttr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_query_qp", rc, cs);
    }

    /**
     * {@code ibv_destroy_qp}.
     *
     * @param qp the QP
     */
    public static void destroyQp(MemorySegment qp) {
        intResult("ibv_destroy_qp", H.DESTROY_QP, qp);
    }
}
