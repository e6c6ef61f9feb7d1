package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct verbs_context}: the extended context that sits in memory right before an
 * {@code ibv_context} whose {@code abi_compat} is {@code __VERBS_ABI_IS_EXTENDED}. Only the members the
 * bindings use are named ({@code query_port}, {@code post_srq_ops}, {@code query_device_ex}, {@code create_qp_ex},
 * {@code create_srq_ex}, {@code sz}, {@code context}); the other function pointers are padding here.
 */
public final class VerbsContext {
    /** {@code struct verbs_context} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("query_port"),
            pad(136),
            PTR.withName("post_srq_ops"),
            pad(64),
            PTR.withName("query_device_ex"),
            pad(40),
            PTR.withName("create_qp_ex"),
            pad(8),
            PTR.withName("create_srq_ex"),
            pad(24),
            SIZE_T.withName("sz"),
            IbvContext.LAYOUT.withName("context"))
            .withName("verbs_context");
    /** {@code sizeof(struct verbs_context)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct verbs_context, query_port)}. */
    public static final long OFFSET_QUERY_PORT = offset(LAYOUT, "query_port");
    /** {@code offsetof(struct verbs_context, post_srq_ops)}. */
    public static final long OFFSET_POST_SRQ_OPS = offset(LAYOUT, "post_srq_ops");
    /** {@code offsetof(struct verbs_context, query_device_ex)}. */
    public static final long OFFSET_QUERY_DEVICE_EX = offset(LAYOUT, "query_device_ex");
    /** {@code offsetof(struct verbs_context, create_srq_ex)}. */
    public static final long OFFSET_CREATE_SRQ_EX = offset(LAYOUT, "create_srq_ex");
    /** {@code offsetof(struct verbs_context, create_qp_ex)}. */
    public static final long OFFSET_CREATE_QP_EX = offset(LAYOUT, "create_qp_ex");
    /** {@code offsetof(struct verbs_context, sz)}. */
    public static final long OFFSET_SZ = offset(LAYOUT, "sz");
    /** {@code offsetof(struct verbs_context, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");

    private VerbsContext() {
    }

    public static MemorySegment queryPort(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_QUERY_PORT);
    }

    public static MemorySegment createQpEx(MemorySegment s) {
        return s.get(ValueLayout.ADDRESS, OFFSET_CREATE_QP_EX);
    }

    public static long sz(MemorySegment s) {
        return s.get(U64, OFFSET_SZ);
    }

    public static MemorySegment context(MemorySegment s) {
        return s.asSlice(OFFSET_CONTEXT, IbvContext.SIZE);
    }

    /** {@code offsetof(struct verbs_context, context)}: subtract from an ibv_context address to get here. */
    public static final long CONTEXT_OFFSET = OFFSET_CONTEXT;
}
