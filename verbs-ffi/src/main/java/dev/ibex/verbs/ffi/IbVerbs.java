package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.BE16;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static dev.ibex.verbs.ffi.struct.Layouts.SIZE_T;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.constant.IbvAccessFlags;
import dev.ibex.verbs.ffi.struct.IbvAh;
import dev.ibex.verbs.ffi.struct.IbvCompChannel;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvCq;
import dev.ibex.verbs.ffi.struct.IbvDevice;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttrEx;
import dev.ibex.verbs.ffi.struct.IbvMr;
import dev.ibex.verbs.ffi.struct.IbvMw;
import dev.ibex.verbs.ffi.struct.IbvMwBind;
import dev.ibex.verbs.ffi.struct.IbvMwBindInfo;
import dev.ibex.verbs.ffi.struct.IbvPd;
import dev.ibex.verbs.ffi.struct.IbvPortAttr;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvQpEx;
import dev.ibex.verbs.ffi.struct.IbvSrq;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * libibverbs ({@code verbs.h}): devices, protection domains, memory regions, completion queues and
 * channels, queue pairs, SRQs, address handles, multicast attach and async events.
 *
 * <p>Each method calls the exported C function of the same name and throws {@link RdmaException} (verb,
 * errno, advice) when it fails, whatever the verb's return convention (NULL + errno, -1 + errno, or the
 * errno value itself). Pointer results come back as segments sized to their struct.
 *
 * <p>The data-path verbs {@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_post_srq_recv},
 * {@code ibv_poll_cq} and {@code ibv_req_notify_cq} are {@code static inline} in {@code verbs.h} and
 * not exported; they are in {@link ContextOps}.
 */
public final class IbVerbs {
    private IbVerbs() {
    }

    private static final class H {
        static final Downcalls D = Downcalls.of(Libraries.ibverbs());
        static final MethodHandle GET_DEVICE_LIST = D.errno("ibv_get_device_list", FunctionDescriptor.of(PTR, PTR));
        static final MethodHandle FREE_DEVICE_LIST = D.plain("ibv_free_device_list", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle GET_DEVICE_NAME = D.plain("ibv_get_device_name", FunctionDescriptor.of(PTR, PTR));
        static final MethodHandle GET_DEVICE_GUID = D.plain("ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, PTR));
        static final MethodHandle OPEN_DEVICE = D.errno("ibv_open_device",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvContext.LAYOUT), PTR));
        static final MethodHandle CLOSE_DEVICE = D.errno("ibv_close_device", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle QUERY_DEVICE = D.errno("ibv_query_device", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle QUERY_PORT = D.errno("ibv_query_port", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, PTR));
        static final MethodHandle QUERY_GID = D.errno("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, JAVA_INT, PTR));
        static final MethodHandle QUERY_PKEY = D.errno("ibv_query_pkey", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, JAVA_INT, PTR));
        static final MethodHandle ALLOC_PD = D.errno("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvPd.LAYOUT), PTR));
        static final MethodHandle DEALLOC_PD = D.errno("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle REG_MR = D.errno("ibv_reg_mr",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMr.LAYOUT), PTR, PTR, SIZE_T, JAVA_INT));
        static final MethodHandle REG_MR_IOVA2 = D.optionalErrno("ibv_reg_mr_iova2",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMr.LAYOUT), PTR, PTR, SIZE_T, JAVA_LONG, JAVA_INT));
        static final MethodHandle DEREG_MR = D.errno("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle CREATE_COMP_CHANNEL = D.errno("ibv_create_comp_channel",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvCompChannel.LAYOUT), PTR));
        static final MethodHandle DESTROY_COMP_CHANNEL = D.errno("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle CREATE_CQ = D.errno("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvCq.LAYOUT), PTR, JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle DESTROY_CQ = D.errno("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle GET_CQ_EVENT = D.errno("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
        static final MethodHandle ACK_CQ_EVENTS = D.plain("ibv_ack_cq_events", FunctionDescriptor.ofVoid(PTR, JAVA_INT));
        static final MethodHandle CREATE_QP = D.errno("ibv_create_qp",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQp.LAYOUT), PTR, PTR));
        static final MethodHandle MODIFY_QP = D.errno("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle QUERY_QP = D.errno("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT, PTR));
        static final MethodHandle DESTROY_QP = D.errno("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle CREATE_SRQ = D.errno("ibv_create_srq",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvSrq.LAYOUT), PTR, PTR));
        static final MethodHandle MODIFY_SRQ = D.errno("ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_INT));
        static final MethodHandle QUERY_SRQ = D.errno("ibv_query_srq", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle DESTROY_SRQ = D.errno("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle CREATE_AH = D.errno("ibv_create_ah",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvAh.LAYOUT), PTR, PTR));
        static final MethodHandle DESTROY_AH = D.errno("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle INIT_AH_FROM_WC = D.errno("ibv_init_ah_from_wc",
                FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, PTR, PTR, PTR));
        static final MethodHandle CREATE_AH_FROM_WC = D.errno("ibv_create_ah_from_wc",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvAh.LAYOUT), PTR, PTR, PTR, JAVA_BYTE));
        static final MethodHandle ATTACH_MCAST = D.errno("ibv_attach_mcast", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_SHORT));
        static final MethodHandle DETACH_MCAST = D.errno("ibv_detach_mcast", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_SHORT));
        static final MethodHandle GET_ASYNC_EVENT = D.errno("ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle ACK_ASYNC_EVENT = D.plain("ibv_ack_async_event", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle EVENT_TYPE_STR = D.plain("ibv_event_type_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle WC_STATUS_STR = D.plain("ibv_wc_status_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle PORT_STATE_STR = D.plain("ibv_port_state_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle NODE_TYPE_STR = D.plain("ibv_node_type_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle FORK_INIT = D.errno("ibv_fork_init", FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle IS_FORK_INITIALIZED = D.optionalPlain("ibv_is_fork_initialized", FunctionDescriptor.of(JAVA_INT));
        /** {@code verbs_context.query_port(context, port_num, port_attr, port_attr_len)}, called through its pointer. */
        static final MethodHandle VCTX_QUERY_PORT = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, PTR, SIZE_T));
        /** {@code verbs_context.create_qp_ex(context, qp_init_attr_ex)}: NULL and errno on failure. */
        static final MethodHandle VCTX_CREATE_QP_EX = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQp.LAYOUT), PTR, PTR));
        /** {@code verbs_context.query_device_ex(context, input, attr, attr_size)}: 0 or an errno value. */
        static final MethodHandle VCTX_QUERY_DEVICE_EX = Downcalls.pointer(
                FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR, SIZE_T));
        /** {@code verbs_context.create_srq_ex(context, srq_init_attr_ex)}: NULL and errno on failure. */
        static final MethodHandle VCTX_CREATE_SRQ_EX = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvSrq.LAYOUT), PTR, PTR));
        static final MethodHandle QP_TO_QP_EX = D.optionalPlain("ibv_qp_to_qp_ex",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvQpEx.LAYOUT), PTR));
        /** Looked up once: a dlsym per QP created showed in the VM's connection setup profile (issue 18). */
        static final boolean HAS_QP_TO_QP_EX = D.present("ibv_qp_to_qp_ex");
        /** {@code ops.alloc_mw(pd, type)}: NULL and errno on failure. */
        static final MethodHandle ALLOC_MW_FN = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(ADDRESS.withTargetLayout(IbvMw.LAYOUT), PTR, JAVA_INT));
        /** {@code ops.dealloc_mw(mw)} and {@code ops.bind_mw(qp, mw, mw_bind)}: 0 or an errno value. */
        static final MethodHandle DEALLOC_MW_FN = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle BIND_MW_FN = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
    }

    /** Every libibverbs function these bindings declare, and whether it resolved here. */
    public static List<Downcalls.Function> functions() {
        return H.D.functions();
    }

    /** The library (for {@link NativeLibrary#isAvailable()} checks). */
    public static NativeLibrary library() {
        return Libraries.ibverbs();
    }

    // ---- devices ----

    /**
     * {@code ibv_get_device_list}: an array segment of {@code byteSize()/8} {@code struct ibv_device *}
     * (read with {@link #device}). The list may be empty but is never NULL; free it with
     * {@link #freeDeviceList} even when empty.
     *
     * @throws RdmaException ENOSYS when the kernel has no RDMA support (the message names the alternatives)
     */
    public static MemorySegment getDeviceList() {
        CallState cs = CallState.current();
        MemorySegment list;
        try {
            list = (MemorySegment) H.GET_DEVICE_LIST.invokeExact(cs.capture, cs.clearedOut0());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (list.address() == 0) {
            int errno = cs.errno();
            throw RdmaErrors.failure("ibv_get_device_list", errno == 0 ? Errno.ENODEV.number() : errno);
        }
        return list.reinterpret(8L * cs.out0.get(JAVA_INT, 0));
    }

    /** Entry {@code i} of a {@link #getDeviceList} result, sized as a {@code struct ibv_device}. */
    public static MemorySegment device(MemorySegment list, int i) {
        return list.getAtIndex(ADDRESS, i).reinterpret(IbvDevice.SIZE);
    }

    /** {@code ibv_free_device_list}: entries are invalid afterwards (opened contexts stay valid). */
    public static void freeDeviceList(MemorySegment list) {
        Pointers.require(list, "list", "ibv_free_device_list");
        try {
            H.FREE_DEVICE_LIST.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_get_device_name}, e.g. {@code rxe0}. */
    public static String getDeviceName(MemorySegment device) {
        Pointers.require(device, "device", "ibv_get_device_name");
        try {
            return RdmaCm.cString((MemorySegment) H.GET_DEVICE_NAME.invokeExact(device));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_get_device_guid} converted to host order (the C function returns network order). */
    public static long getDeviceGuid(MemorySegment device) {
        Pointers.require(device, "device", "ibv_get_device_guid");
        try {
            return NetworkOrder.ntohll((long) H.GET_DEVICE_GUID.invokeExact(device));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_open_device}: the {@code struct ibv_context} every other verb works on. */
    public static MemorySegment openDevice(MemorySegment device) {
        return pointerResult("ibv_open_device", H.OPEN_DEVICE, device);
    }

    /** {@code ibv_close_device}: does not free the objects created on it; destroy them first. */
    public static void closeDevice(MemorySegment context) {
        intResult("ibv_close_device", H.CLOSE_DEVICE, context);
    }

    /** {@code ibv_query_device} into a {@code struct ibv_device_attr}. */
    public static void queryDevice(MemorySegment context, MemorySegment deviceAttr) {
        intResult("ibv_query_device", H.QUERY_DEVICE, context, deviceAttr);
    }

    /**
     * {@code ibv_query_device_ex} as the {@code verbs.h} static inline does it (with no input): the context's extended
     * op with {@code sizeof(struct ibv_device_attr_ex)} when there is one; when there is none, or it answers EOPNOTSUPP
     * or ENOSYS (libibverbs' dummy op, e.g. on rxe), the struct is zeroed and {@code ibv_query_device} fills
     * {@code orig_attr} — so every extended capability, {@code tm_caps} included, reads 0. {@code attrEx} must hold
     * {@link IbvDeviceAttrEx#SIZE} bytes.
     */
    public static void queryDeviceEx(MemorySegment context, MemorySegment attrEx) {
        Pointers.require(context, "context", "ibv_query_device_ex");
        if (attrEx.byteSize() < IbvDeviceAttrEx.SIZE) {
            throw new IllegalArgumentException("attr needs " + IbvDeviceAttrEx.SIZE + " bytes, got " + attrEx.byteSize());
        }
        MemorySegment fn = extendedOp(context, VerbsContext.OFFSET_QUERY_DEVICE_EX);
        int rc = Errno.ENOTSUP.number();
        if (fn.address() != 0) {
            try {
                rc = (int) H.VCTX_QUERY_DEVICE_EX.invokeExact(fn, context, MemorySegment.NULL, attrEx,
                        IbvDeviceAttrEx.SIZE);
            } catch (Throwable t) {
                throw Downcalls.rethrow(t);
            }
        }
        if (rc == Errno.ENOTSUP.number() || rc == Errno.ENOSYS.number()) {
            attrEx.asSlice(0, IbvDeviceAttrEx.SIZE).fill((byte) 0);
            queryDevice(context, IbvDeviceAttrEx.origAttr(attrEx));
            return;
        }
        if (rc != 0) {
            throw RdmaErrors.failure("ibv_query_device_ex", rc);
        }
    }

    /**
     * {@code ibv_create_srq_ex} for a request that needs the extended op (a TM-SRQ): {@code verbs_context.create_srq_ex}
     * (a provider without it has libibverbs' dummy op, which answers EOPNOTSUPP).
     *
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the context has no extended op, or what the device reports
     */
    public static MemorySegment createSrqEx(MemorySegment context, MemorySegment initAttrEx) {
        Pointers.require(context, "context", "ibv_create_srq_ex");
        Pointers.require(initAttrEx, "srq_init_attr_ex", "ibv_create_srq_ex");
        MemorySegment fn = extendedOp(context, VerbsContext.OFFSET_CREATE_SRQ_EX);
        if (fn.address() == 0) {
            throw RdmaErrors.failure("ibv_create_srq_ex", Errno.ENOTSUP.number());
        }
        CallState cs = CallState.current();
        MemorySegment p;
        try {
            p = (MemorySegment) H.VCTX_CREATE_SRQ_EX.invokeExact(fn, cs.capture, context, initAttrEx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (p.address() == 0) {
            throw RdmaErrors.failure("ibv_create_srq_ex", cs.errno());
        }
        return p;
    }

    /**
     * {@code ibv_query_port} as the {@code verbs.h} macro does it ({@code ___ibv_query_port}): the header
     * replaces the exported function with a static inline that calls {@code verbs_context->query_port}
     * with {@code sizeof(struct ibv_port_attr)} when the context is extended and the op is set. Otherwise
     * it zeroes the struct and calls the exported {@code ibv_query_port@IBVERBS_1.1}, which fills only the
     * legacy {@code struct _compat_ibv_port_attr} prefix (up to {@code flags}, 48 bytes; the
     * {@code port_cap_flags2} field then reads 0). {@code portAttr} must hold {@link IbvPortAttr#SIZE} bytes.
     *
     * @param port port number, from 1
     */
    public static void queryPort(MemorySegment context, int port, MemorySegment portAttr) {
        Pointers.require(context, "context", "ibv_query_port");
        checkPort(port);
        if (portAttr.byteSize() < IbvPortAttr.SIZE) {
            throw new IllegalArgumentException("port_attr needs " + IbvPortAttr.SIZE + " bytes, got " + portAttr.byteSize());
        }
        MemorySegment queryPort = extendedQueryPort(context);
        CallState cs = CallState.current();
        int rc;
        try {
            if (queryPort.address() != 0) {
                rc = (int) H.VCTX_QUERY_PORT.invokeExact(queryPort, cs.capture, context, (byte) port, portAttr, IbvPortAttr.SIZE);
            } else {
                portAttr.asSlice(0, IbvPortAttr.SIZE).fill((byte) 0);
                rc = (int) H.QUERY_PORT.invokeExact(cs.capture, context, (byte) port, portAttr);
            }
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_query_port", rc, cs);
    }

    /**
     * {@code verbs_get_ctx_op(context, query_port)}: the extended op when {@code abi_compat} marks the
     * context as extended, {@code sz} covers the op and the pointer is set; NULL otherwise.
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
        return vctx.get(java.lang.foreign.ValueLayout.ADDRESS, offset);
    }

    static MemorySegment extendedQueryPort(MemorySegment context) {
        MemorySegment ctx = context.reinterpret(IbvContext.SIZE);
        if (IbvContext.abiCompat(ctx) != IbvContext.VERBS_ABI_IS_EXTENDED) {
            return MemorySegment.NULL;
        }
        MemorySegment vctx = MemorySegment.ofAddress(ctx.address() - VerbsContext.CONTEXT_OFFSET).reinterpret(VerbsContext.SIZE);
        if (VerbsContext.sz(vctx) < VerbsContext.SIZE - VerbsContext.OFFSET_QUERY_PORT) {
            return MemorySegment.NULL;
        }
        return VerbsContext.queryPort(vctx);
    }

    /** {@code ibv_query_gid}: GID {@code index} of {@code port} into a {@code union ibv_gid}. */
    public static void queryGid(MemorySegment context, int port, int index, MemorySegment gid) {
        Pointers.require(context, "context", "ibv_query_gid");
        Pointers.require(gid, "gid", "ibv_query_gid");
        checkPort(port);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.QUERY_GID.invokeExact(cs.capture, context, (byte) port, index, gid);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_query_gid", rc, cs);
    }

    /** {@code ibv_query_pkey}: P_Key {@code index} of {@code port}, as a host-order value. */
    public static int queryPkey(MemorySegment context, int port, int index) {
        Pointers.require(context, "context", "ibv_query_pkey");
        checkPort(port);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.QUERY_PKEY.invokeExact(cs.capture, context, (byte) port, index, cs.clearedOut0());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_query_pkey", rc, cs);
        return Short.toUnsignedInt(cs.out0.get(BE16, 0));
    }

    // ---- PD and MR ----

    /** {@code ibv_alloc_pd}. */
    public static MemorySegment allocPd(MemorySegment context) {
        return pointerResult("ibv_alloc_pd", H.ALLOC_PD, context);
    }

    /** {@code ibv_dealloc_pd}: fails with EBUSY while QPs, MRs, AHs or SRQs use it. */
    public static void deallocPd(MemorySegment pd) {
        intResult("ibv_dealloc_pd", H.DEALLOC_PD, pd);
    }

    /**
     * {@code ibv_reg_mr} over all of {@code memory}, as the {@code verbs.h} macro does it: the exported
     * {@code ibv_reg_mr}, or {@code ibv_reg_mr_iova2} (iova = address) when {@code access} has bits in
     * {@code IBV_ACCESS_OPTIONAL_RANGE} such as {@code IBV_ACCESS_RELAXED_ORDERING}.
     *
     * @param access {@code IbvAccessFlags} bits; remote write/atomic need {@code IBV_ACCESS_LOCAL_WRITE}
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

    /** Whether {@code ibv_reg_mr_iova2} (IBVERBS_1.8, rdma-core 29+) is exported here. */
    public static boolean hasRegMrIova2() {
        return Libraries.ibverbs().hasSymbol("ibv_reg_mr_iova2");
    }

    /** {@code ibv_reg_mr_iova2}: registers {@code memory}, addressed remotely as {@code iova}. Optional symbol. */
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

    /** {@code ibv_dereg_mr}. */
    public static void deregMr(MemorySegment mr) {
        intResult("ibv_dereg_mr", H.DEREG_MR, mr);
    }

    // ---- memory windows: static inline in verbs.h, called through the context's ops table ----

    /**
     * {@code ibv_alloc_mw(pd, type)} ({@code pd->context->ops.alloc_mw}).
     *
     * @param type {@code IBV_MW_TYPE_1} (1) or {@code IBV_MW_TYPE_2} (2)
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

    /** {@code ibv_dealloc_mw(mw)} ({@code mw->context->ops.dealloc_mw}): ends any binding. */
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

    // ---- completion channels and CQs ----

    /** {@code ibv_create_comp_channel}: its fd ({@code IbvCompChannel.fd}) is blocking until made non-blocking. */
    public static MemorySegment createCompChannel(MemorySegment context) {
        return pointerResult("ibv_create_comp_channel", H.CREATE_COMP_CHANNEL, context);
    }

    /** {@code ibv_destroy_comp_channel}: fails with EBUSY while a CQ uses it. */
    public static void destroyCompChannel(MemorySegment channel) {
        intResult("ibv_destroy_comp_channel", H.DESTROY_COMP_CHANNEL, channel);
    }

    /**
     * {@code ibv_create_cq}.
     *
     * @param cqe minimum number of entries
     * @param cqContext returned by {@link #getCqEvent} as {@code cq->cq_context}; may be NULL
     * @param channel completion channel, or NULL for a polled-only CQ
     * @param compVector {@code 0 <= compVector < context->num_comp_vectors}
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

    /** {@code ibv_destroy_cq}: ack all its events first ({@link #ackCqEvents}) or this blocks forever. */
    public static void destroyCq(MemorySegment cq) {
        intResult("ibv_destroy_cq", H.DESTROY_CQ, cq);
    }

    /**
     * {@code ibv_get_cq_event}: the CQ that has a completion event, or {@link MemorySegment#NULL} when a
     * non-blocking channel has none (EAGAIN/EINTR). Every event must be acked with {@link #ackCqEvents};
     * the CQ is disarmed until {@code ibv_req_notify_cq}. Its {@code cq_context} is {@code IbvCq.cqContext}.
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

    /** {@code ibv_ack_cq_events}: takes a mutex, so ack in batches. */
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

    // ---- QPs ----

    /** {@code ibv_create_qp}: the QP starts in RESET; {@code initAttr.cap} returns the granted sizes. */
    public static MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        return pointerResult("ibv_create_qp", H.CREATE_QP, pd, initAttr);
    }

    /**
     * {@code ibv_create_qp_ex}: a QP made from a {@code struct ibv_qp_init_attr_ex} through the context's extended op
     * ({@code verbs_context.create_qp_ex}); the QP starts in RESET and {@code initAttrEx.cap} returns the granted sizes.
     *
     * @throws dev.ibex.cm.RdmaException EOPNOTSUPP when the context has no extended op, or what the provider reports
     *     (e.g. EOPNOTSUPP/EINVAL for send-ops flags it cannot do)
     */
    public static MemorySegment createQpEx(MemorySegment context, MemorySegment initAttrEx) {
        Pointers.require(context, "context", "ibv_create_qp_ex");
        Pointers.require(initAttrEx, "qp_init_attr_ex", "ibv_create_qp_ex");
        MemorySegment fn = extendedOp(context, VerbsContext.OFFSET_CREATE_QP_EX);
        if (fn.address() == 0) {
            throw RdmaErrors.failure("ibv_create_qp_ex", Errno.ENOTSUP.number());
        }
        CallState cs = CallState.current();
        MemorySegment p;
        try {
            p = (MemorySegment) H.VCTX_CREATE_QP_EX.invokeExact(fn, cs.capture, context, initAttrEx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (p.address() == 0) {
            throw RdmaErrors.failure("ibv_create_qp_ex", cs.errno());
        }
        return p;
    }

    /**
     * {@code ibv_qp_to_qp_ex}: the {@code struct ibv_qp_ex} of a QP made by {@code ibv_create_qp_ex}.
     *
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

    /** {@code ibv_modify_qp} with an {@code IbvQpAttrMask} mask. */
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

    /** {@code ibv_query_qp}: fills {@code attr} ({@code ibv_qp_attr}) and {@code initAttr} ({@code ibv_qp_init_attr}). */
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

    /** {@code ibv_destroy_qp}. */
    public static void destroyQp(MemorySegment qp) {
        intResult("ibv_destroy_qp", H.DESTROY_QP, qp);
    }

    // ---- SRQs ----

    /** {@code ibv_create_srq}. */
    public static MemorySegment createSrq(MemorySegment pd, MemorySegment srqInitAttr) {
        return pointerResult("ibv_create_srq", H.CREATE_SRQ, pd, srqInitAttr);
    }

    /** {@code ibv_modify_srq} with an {@code IbvSrqAttrMask} mask (re-arm the limit with {@code IBV_SRQ_LIMIT}). */
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

    /** {@code ibv_query_srq}. */
    public static void querySrq(MemorySegment srq, MemorySegment srqAttr) {
        intResult("ibv_query_srq", H.QUERY_SRQ, srq, srqAttr);
    }

    /** {@code ibv_destroy_srq}. */
    public static void destroySrq(MemorySegment srq) {
        intResult("ibv_destroy_srq", H.DESTROY_SRQ, srq);
    }

    // ---- address handles and multicast ----

    /** {@code ibv_create_ah} from a {@code struct ibv_ah_attr}. */
    public static MemorySegment createAh(MemorySegment pd, MemorySegment ahAttr) {
        return pointerResult("ibv_create_ah", H.CREATE_AH, pd, ahAttr);
    }

    /** {@code ibv_destroy_ah}: only after every WR that used it has completed. */
    public static void destroyAh(MemorySegment ah) {
        intResult("ibv_destroy_ah", H.DESTROY_AH, ah);
    }

    /** {@code ibv_init_ah_from_wc}: the reply address vector for a UD receive ({@code grh} may be NULL). */
    public static void initAhFromWc(MemorySegment context, int port, MemorySegment wc, MemorySegment grh, MemorySegment ahAttr) {
        Pointers.require(context, "context", "ibv_init_ah_from_wc");
        Pointers.require(wc, "wc", "ibv_init_ah_from_wc");
        Pointers.require(ahAttr, "ah_attr", "ibv_init_ah_from_wc");
        checkPort(port);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.INIT_AH_FROM_WC.invokeExact(cs.capture, context, (byte) port, wc, grh, ahAttr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_init_ah_from_wc", rc, cs);
    }

    /** {@code ibv_create_ah_from_wc}: an AH to reply to the sender of a UD receive. */
    public static MemorySegment createAhFromWc(MemorySegment pd, MemorySegment wc, MemorySegment grh, int port) {
        Pointers.require(pd, "pd", "ibv_create_ah_from_wc");
        Pointers.require(wc, "wc", "ibv_create_ah_from_wc");
        checkPort(port);
        CallState cs = CallState.current();
        MemorySegment ah;
        try {
            ah = (MemorySegment) H.CREATE_AH_FROM_WC.invokeExact(cs.capture, pd, wc, grh, (byte) port);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (ah.address() == 0) {
            throw RdmaErrors.failure("ibv_create_ah_from_wc", cs.errno());
        }
        return ah;
    }

    /** {@code ibv_attach_mcast}: attach a UD QP to multicast group {@code gid}/{@code lid}. */
    public static void attachMcast(MemorySegment qp, MemorySegment gid, int lid) {
        mcast("ibv_attach_mcast", H.ATTACH_MCAST, qp, gid, lid);
    }

    /** {@code ibv_detach_mcast}. */
    public static void detachMcast(MemorySegment qp, MemorySegment gid, int lid) {
        mcast("ibv_detach_mcast", H.DETACH_MCAST, qp, gid, lid);
    }

    private static void mcast(String verb, MethodHandle h, MemorySegment qp, MemorySegment gid, int lid) {
        Pointers.require(qp, "qp", verb);
        Pointers.require(gid, "gid", verb);
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("LID out of range: " + lid);
        }
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, qp, gid, (short) lid);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }

    // ---- async events ----

    /**
     * {@code ibv_get_async_event} into {@code event} (a {@code struct ibv_async_event}).
     *
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

    /** {@code ibv_ack_async_event}: every event must be acked before its object is destroyed. */
    public static void ackAsyncEvent(MemorySegment event) {
        Pointers.require(event, "event", "ibv_ack_async_event");
        try {
            H.ACK_ASYNC_EVENT.invokeExact(event);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- strings and fork ----

    /** {@code ibv_event_type_str}. */
    public static String eventTypeStr(int eventType) {
        return str(H.EVENT_TYPE_STR, eventType);
    }

    /** {@code ibv_wc_status_str}. */
    public static String wcStatusStr(int status) {
        return str(H.WC_STATUS_STR, status);
    }

    /** {@code ibv_port_state_str}. */
    public static String portStateStr(int state) {
        return str(H.PORT_STATE_STR, state);
    }

    /** {@code ibv_node_type_str}. */
    public static String nodeTypeStr(int nodeType) {
        return str(H.NODE_TYPE_STR, nodeType);
    }

    /**
     * {@code ibv_fork_init}: makes registered memory safe across {@code fork()} (MADV_DONTFORK). Call it
     * before the first memory registration when native code in the process may call {@code fork()}
     * ({@code ProcessBuilder} uses posix_spawn and is safe); see the module README.
     */
    public static void forkInit() {
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.FORK_INIT.invokeExact(cs.capture);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("ibv_fork_init", rc, cs);
    }

    /**
     * {@code ibv_is_fork_initialized} (IBVERBS_1.13, optional): an {@code IbvForkStatus} value;
     * {@code IBV_FORK_UNNEEDED} when the kernel makes fork safe by itself.
     */
    public static int isForkInitialized() {
        try {
            return (int) H.IS_FORK_INITIALIZED.invokeExact();
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- helpers ----

    private static void checkPort(int port) {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port numbers run from 1 to 255, got " + port);
        }
    }

    private static void check(String verb, int rc, CallState cs) {
        if (rc != 0) {
            throw RdmaErrors.failure(verb, RdmaErrors.errnoOf(rc, cs.errno()));
        }
    }

    private static String str(MethodHandle h, int value) {
        try {
            return RdmaCm.cString((MemorySegment) h.invokeExact(value));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static MemorySegment pointerResult(String verb, MethodHandle h, MemorySegment a) {
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

    private static MemorySegment pointerResult(String verb, MethodHandle h, MemorySegment a, MemorySegment b) {
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

    private static void intResult(String verb, MethodHandle h, MemorySegment a) {
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

    private static void intResult(String verb, MethodHandle h, MemorySegment a, MemorySegment b) {
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
