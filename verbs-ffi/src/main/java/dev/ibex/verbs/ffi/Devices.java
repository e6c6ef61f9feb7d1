package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.IbVerbs.check;
import static dev.ibex.verbs.ffi.IbVerbs.checkPort;
import static dev.ibex.verbs.ffi.IbVerbs.extendedOp;
import static dev.ibex.verbs.ffi.IbVerbs.intResult;
import static dev.ibex.verbs.ffi.IbVerbs.pointerResult;
import static dev.ibex.verbs.ffi.struct.Layouts.BE16;
import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static dev.ibex.verbs.ffi.struct.Layouts.SIZE_T;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvDevice;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttrEx;
import dev.ibex.verbs.ffi.struct.IbvPortAttr;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * libibverbs' devices and ports: the device list, {@code ibv_open_device} and {@code ibv_close_device}, and the queries
 * of an opened context ({@code ibv_query_device(_ex)}, {@code ibv_query_port}, {@code ibv_query_gid},
 * {@code ibv_query_pkey}); rdma-core's device.c and the query verbs of verbs.c.
 *
 * <p>{@code ibv_query_device_ex} and {@code ibv_query_port} are {@code static inline} in {@code verbs.h} and call the
 * context's extended op when it has one; {@link #queryDeviceEx} and {@link #queryPort} do the same, so the fields
 * the exported functions leave out read what the provider reports.
 */
public final class Devices {
    private Devices() {
    }

    static final class H {
        private static final Downcalls D = IbVerbs.downcalls();
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
        /** {@code verbs_context.query_port(context, port_num, port_attr, port_attr_len)}, called through its pointer. */
        static final MethodHandle VCTX_QUERY_PORT = Downcalls.pointerWithErrno(
                FunctionDescriptor.of(JAVA_INT, PTR, JAVA_BYTE, PTR, SIZE_T));
        /** {@code verbs_context.query_device_ex(context, input, attr, attr_size)}: 0 or an errno value. */
        static final MethodHandle VCTX_QUERY_DEVICE_EX = Downcalls.pointer(
                FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR, SIZE_T));
    }

    /**
     * {@code ibv_get_device_list}: an array segment of {@code byteSize()/8} {@code struct ibv_device *}
     * (read with {@link #device}). The list may be empty but is never NULL; free it with
     * {@link #freeDeviceList} even when empty.
     *
     * @return the list, never NULL
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

    /**
     * Entry {@code i} of a {@link #getDeviceList} result, sized as a {@code struct ibv_device}.
     *
     * @param list what {@link #getDeviceList} returned
     * @param i the entry, from 0
     * @return the device
     */
    public static MemorySegment device(MemorySegment list, int i) {
        return list.getAtIndex(ADDRESS, i).reinterpret(IbvDevice.SIZE);
    }

    /**
     * {@code ibv_free_device_list}: entries are invalid afterwards (opened contexts stay valid).
     *
     * @param list what {@link #getDeviceList} returned
     */
    public static void freeDeviceList(MemorySegment list) {
        Pointers.require(list, "list", "ibv_free_device_list");
        try {
            H.FREE_DEVICE_LIST.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_get_device_name}, e.g. {@code rxe0}.
     *
     * @param device an entry of the device list
     * @return the kernel's name of the device
     */
    public static String getDeviceName(MemorySegment device) {
        Pointers.require(device, "device", "ibv_get_device_name");
        try {
            return RdmaCm.cString((MemorySegment) H.GET_DEVICE_NAME.invokeExact(device));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_get_device_guid} converted to host order (the C function returns network order).
     *
     * @param device an entry of the device list
     * @return the node GUID
     */
    public static long getDeviceGuid(MemorySegment device) {
        Pointers.require(device, "device", "ibv_get_device_guid");
        try {
            return NetworkOrder.ntohll((long) H.GET_DEVICE_GUID.invokeExact(device));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_open_device}: the {@code struct ibv_context} every other verb works on.
     *
     * @param device an entry of the device list
     * @return the context
     */
    public static MemorySegment openDevice(MemorySegment device) {
        return pointerResult("ibv_open_device", H.OPEN_DEVICE, device);
    }

    /**
     * {@code ibv_close_device}: does not free the objects created on it; destroy them first.
     *
     * @param context what {@link #openDevice} returned
     */
    public static void closeDevice(MemorySegment context) {
        intResult("ibv_close_device", H.CLOSE_DEVICE, context);
    }

    /**
     * {@code ibv_query_device} into a {@code struct ibv_device_attr}.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param deviceAttr the {@code struct ibv_device_attr} to fill
     */
    public static void queryDevice(MemorySegment context, MemorySegment deviceAttr) {
        intResult("ibv_query_device", H.QUERY_DEVICE, context, deviceAttr);
    }

    /**
     * {@code ibv_query_device_ex} as the {@code verbs.h} static inline does it (with no input): the context's extended
     * op with {@code sizeof(struct ibv_device_attr_ex)} when there is one; when there is none, or it answers EOPNOTSUPP
     * or ENOSYS (libibverbs' dummy op, e.g. on rxe), the struct is zeroed and {@code ibv_query_device} fills
     * {@code orig_attr} — so every extended capability, {@code tm_caps} included, reads 0. {@code attrEx} must hold
     * {@link IbvDeviceAttrEx#SIZE} bytes.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param attrEx the {@code struct ibv_device_attr_ex} to fill
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
     * {@code ibv_query_port} as the {@code verbs.h} macro does it ({@code ___ibv_query_port}): the header
     * replaces the exported function with a static inline that calls {@code verbs_context->query_port}
     * with {@code sizeof(struct ibv_port_attr)} when the context is extended and the op is set. Otherwise
     * it zeroes the struct and calls the exported {@code ibv_query_port@IBVERBS_1.1}, which fills only the
     * legacy {@code struct _compat_ibv_port_attr} prefix (up to {@code flags}, 48 bytes; the
     * {@code port_cap_flags2} field then reads 0). {@code portAttr} must hold {@link IbvPortAttr#SIZE} bytes.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param port port number, from 1
     * @param portAttr the {@code struct ibv_port_attr} to fill
     */
    public static void queryPort(MemorySegment context, int port, MemorySegment portAttr) {
        Pointers.require(context, "context", "ibv_query_port");
        checkPort(port);
        if (portAttr.byteSize() < IbvPortAttr.SIZE) {
            throw new IllegalArgumentException("port_attr needs " + IbvPortAttr.SIZE + " bytes, got " + portAttr.byteSize());
        }
        MemorySegment queryPort = extendedOp(context, VerbsContext.OFFSET_QUERY_PORT);
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
     * {@code ibv_query_gid}: GID {@code index} of {@code port} into a {@code union ibv_gid}.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param port port number, from 1
     * @param index the entry of the port's GID table
     * @param gid the 16 bytes to fill
     */
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

    /**
     * {@code ibv_query_pkey}: P_Key {@code index} of {@code port}, as a host-order value.
     *
     * @param context an opened device (a {@code struct ibv_context})
     * @param port port number, from 1
     * @param index the entry of the port's P_Key table
     * @return the P_Key
     */
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
}
