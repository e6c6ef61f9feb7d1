package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static dev.ibex.verbs.ffi.struct.Layouts.SIZE_T;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.struct.RdmaAddrinfo;
import dev.ibex.verbs.ffi.struct.RdmaCmEvent;
import dev.ibex.verbs.ffi.struct.RdmaCmId;
import dev.ibex.verbs.ffi.struct.RdmaEventChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * librdmacm ({@code rdma_cma.h}): the RDMA connection manager.
 *
 * <p>Each method calls the C function of the same name and throws {@link RdmaException} (verb, errno,
 * advice) when it fails; pointer results come back as segments sized to their struct. Arguments are
 * passed as they are: a {@link MemorySegment} for every pointer ({@link MemorySegment#NULL} where C allows
 * NULL). Calls on ids of an asynchronous channel return at once and report completion as a CM event;
 * {@link #destroyId} and {@link #migrateId} block until the id's events are acked, so ack promptly.
 *
 * <p>Not bound: the {@code static inline} helpers of {@code rdma_cma.h}/{@code rdma_verbs.h}
 * ({@code rdma_get_local_addr}/{@code rdma_get_peer_addr} are {@link RdmaCmId#srcAddr}/{@link RdmaCmId#dstAddr};
 * {@code rdma_post_*}, {@code rdma_reg_*} and {@code rdma_get_*_comp} are built from the libibverbs families of
 * {@link IbVerbs} and {@link ContextOps}), and the synchronous {@code rdma_create_ep}/{@code rdma_get_request} API.
 */
public final class RdmaCm {
    private RdmaCm() {
    }

    private static final class H {
        static final Downcalls D = Downcalls.of(Libraries.rdmacm());
        static final MethodHandle CREATE_EVENT_CHANNEL = D.errno("rdma_create_event_channel",
                FunctionDescriptor.of(ADDRESS.withTargetLayout(RdmaEventChannel.LAYOUT)));
        static final MethodHandle DESTROY_EVENT_CHANNEL = D.plain("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle CREATE_ID = D.errno("rdma_create_id", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR, JAVA_INT));
        static final MethodHandle DESTROY_ID = D.errno("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle MIGRATE_ID = D.errno("rdma_migrate_id", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle SET_OPTION = D.errno("rdma_set_option", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT, JAVA_INT, PTR, SIZE_T));
        static final MethodHandle BIND_ADDR = D.errno("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle RESOLVE_ADDR = D.errno("rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR, JAVA_INT));
        static final MethodHandle RESOLVE_ROUTE = D.errno("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT));
        static final MethodHandle LISTEN = D.errno("rdma_listen", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT));
        static final MethodHandle CONNECT = D.errno("rdma_connect", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle ACCEPT = D.errno("rdma_accept", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle REJECT = D.errno("rdma_reject", FunctionDescriptor.of(JAVA_INT, PTR, PTR, JAVA_BYTE));
        static final MethodHandle DISCONNECT = D.errno("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle ESTABLISH = D.errno("rdma_establish", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle NOTIFY = D.errno("rdma_notify", FunctionDescriptor.of(JAVA_INT, PTR, JAVA_INT));
        static final MethodHandle JOIN_MULTICAST = D.errno("rdma_join_multicast", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
        static final MethodHandle JOIN_MULTICAST_EX = D.errno("rdma_join_multicast_ex", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
        static final MethodHandle LEAVE_MULTICAST = D.errno("rdma_leave_multicast", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle GET_CM_EVENT = D.errno("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle ACK_CM_EVENT = D.errno("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, PTR));
        static final MethodHandle EVENT_STR = D.plain("rdma_event_str", FunctionDescriptor.of(PTR, JAVA_INT));
        static final MethodHandle GETADDRINFO = D.errno("rdma_getaddrinfo", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR, PTR));
        static final MethodHandle FREEADDRINFO = D.plain("rdma_freeaddrinfo", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle GET_DEVICES = D.errno("rdma_get_devices", FunctionDescriptor.of(PTR, PTR));
        static final MethodHandle FREE_DEVICES = D.plain("rdma_free_devices", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle GET_SRC_PORT = D.plain("rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, PTR));
        static final MethodHandle GET_DST_PORT = D.plain("rdma_get_dst_port", FunctionDescriptor.of(JAVA_SHORT, PTR));
        static final MethodHandle CREATE_QP = D.errno("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
        static final MethodHandle CREATE_QP_EX = D.errno("rdma_create_qp_ex", FunctionDescriptor.of(JAVA_INT, PTR, PTR));
        static final MethodHandle DESTROY_QP = D.plain("rdma_destroy_qp", FunctionDescriptor.ofVoid(PTR));
        static final MethodHandle INIT_QP_ATTR = D.errno("rdma_init_qp_attr", FunctionDescriptor.of(JAVA_INT, PTR, PTR, PTR));
    }

    /** Every librdmacm function these bindings declare, and whether it resolved here. */
    public static List<Downcalls.Function> functions() {
        return H.D.functions();
    }

    /** The library (for {@link NativeLibrary#isAvailable()} checks). */
    public static NativeLibrary library() {
        return Libraries.rdmacm();
    }

    // ---- event channel ----

    /**
     * {@code rdma_create_event_channel}. Its fd ({@link RdmaEventChannel#fd}) is blocking: make it
     * non-blocking with {@link LibC#setNonBlocking} before polling it with epoll.
     *
     * @throws RdmaException ENODEV when there is no RDMA CM (the message names the alternatives)
     */
    public static MemorySegment createEventChannel() {
        CallState cs = CallState.current();
        MemorySegment channel;
        try {
            channel = (MemorySegment) H.CREATE_EVENT_CHANNEL.invokeExact(cs.capture);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (channel.address() == 0) {
            throw RdmaErrors.failure("rdma_create_event_channel", cs.errno());
        }
        return channel;
    }

    /** {@code rdma_destroy_event_channel}: every id on it must be destroyed and every event acked first. */
    public static void destroyEventChannel(MemorySegment channel) {
        Pointers.require(channel, "channel", "rdma_destroy_event_channel");
        try {
            H.DESTROY_EVENT_CHANNEL.invokeExact(channel);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code rdma_get_cm_event}: the next event, or {@link MemorySegment#NULL} when a non-blocking channel
     * has none (EAGAIN) or the call was interrupted (EINTR). The event belongs to librdmacm until
     * {@link #ackCmEvent}; read it with {@link RdmaCmEvent}.
     */
    public static MemorySegment getCmEvent(MemorySegment channel) {
        Pointers.require(channel, "channel", "rdma_get_cm_event");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.GET_CM_EVENT.invokeExact(cs.capture, channel, cs.clearedOut0());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (rc != 0) {
            int errno = RdmaErrors.errnoOf(rc, cs.errno());
            if (errno == Errno.EAGAIN.number() || errno == Errno.EINTR.number()) {
                return MemorySegment.NULL;
            }
            throw RdmaErrors.failure("rdma_get_cm_event", errno);
        }
        return cs.pointer0().reinterpret(RdmaCmEvent.SIZE);
    }

    /** {@code rdma_ack_cm_event}: frees the event and everything it points to (private data included). */
    public static void ackCmEvent(MemorySegment event) {
        Pointers.require(event, "event", "rdma_ack_cm_event");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.ACK_CM_EVENT.invokeExact(cs.capture, event);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_ack_cm_event", rc, cs);
    }

    /** {@code rdma_event_str}: "RDMA_CM_EVENT_ESTABLISHED" etc. */
    public static String eventStr(int event) {
        try {
            return cString((MemorySegment) H.EVENT_STR.invokeExact(event));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- ids ----

    /**
     * {@code rdma_create_id}.
     *
     * @param channel the event channel, or NULL for a synchronous id
     * @param context returned as {@code id->context} and in events (any pointer-sized cookie)
     * @param portSpace an {@code RdmaPortSpace} value
     * @return the new {@code struct rdma_cm_id}
     */
    public static MemorySegment createId(MemorySegment channel, MemorySegment context, int portSpace) {
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.CREATE_ID.invokeExact(cs.capture, channel, cs.clearedOut0(), context, portSpace);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_create_id", rc, cs);
        return cs.pointer0().reinterpret(RdmaCmId.SIZE);
    }

    /** {@code rdma_destroy_id}: blocks until the id's events are acked; destroy its QP first. */
    public static void destroyId(MemorySegment id) {
        callId("rdma_destroy_id", H.DESTROY_ID, id);
    }

    /** {@code rdma_migrate_id}: moves the id (and its pending events) to {@code channel}; blocks on unacked events. */
    public static void migrateId(MemorySegment id, MemorySegment channel) {
        Pointers.require(id, "id", "rdma_migrate_id");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.MIGRATE_ID.invokeExact(cs.capture, id, channel);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_migrate_id", rc, cs);
    }

    /** {@code rdma_set_option} with {@code optlen = value.byteSize()}. */
    public static void setOption(MemorySegment id, int level, int optname, MemorySegment value) {
        Pointers.require(id, "id", "rdma_set_option");
        Pointers.require(value, "optval", "rdma_set_option");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.SET_OPTION.invokeExact(cs.capture, id, level, optname, value, value.byteSize());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_set_option", rc, cs);
    }

    /** {@code rdma_set_option} for the {@code int} options ({@code RDMA_OPTION_ID_REUSEADDR}, {@code _AFONLY}). */
    public static void setIntOption(MemorySegment id, int level, int optname, int value) {
        MemorySegment slot = CallState.current().small.asSlice(0, 4);
        slot.set(JAVA_INT, 0, value);
        setOption(id, level, optname, slot);
    }

    /** {@code rdma_set_option} for the {@code uint8_t} options ({@code RDMA_OPTION_ID_TOS}, {@code _ACK_TIMEOUT}). */
    public static void setByteOption(MemorySegment id, int level, int optname, int value) {
        if (value < 0 || value > 255) {
            throw new IllegalArgumentException("uint8_t option value out of range: " + value);
        }
        MemorySegment slot = CallState.current().small.asSlice(0, 1);
        slot.set(JAVA_BYTE, 0, (byte) value);
        setOption(id, level, optname, slot);
    }

    /** {@code rdma_bind_addr}: port 0 picks a free port ({@link #getSrcPort} tells which). */
    public static void bindAddr(MemorySegment id, MemorySegment sockaddr) {
        Pointers.require(id, "id", "rdma_bind_addr");
        Pointers.require(sockaddr, "addr", "rdma_bind_addr");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.BIND_ADDR.invokeExact(cs.capture, id, sockaddr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_bind_addr", rc, cs);
    }

    /** {@code rdma_resolve_addr}: completes with ADDR_RESOLVED or ADDR_ERROR. {@code src} may be NULL. */
    public static void resolveAddr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        Pointers.require(id, "id", "rdma_resolve_addr");
        Pointers.require(dst, "dst_addr", "rdma_resolve_addr");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.RESOLVE_ADDR.invokeExact(cs.capture, id, src, dst, timeoutMs);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_resolve_addr", rc, cs);
    }

    /** {@code rdma_resolve_route}: completes with ROUTE_RESOLVED or ROUTE_ERROR. */
    public static void resolveRoute(MemorySegment id, int timeoutMs) {
        callIdInt("rdma_resolve_route", H.RESOLVE_ROUTE, id, timeoutMs);
    }

    /** {@code rdma_listen}. */
    public static void listen(MemorySegment id, int backlog) {
        callIdInt("rdma_listen", H.LISTEN, id, backlog);
    }

    /** {@code rdma_connect}; {@code connParam} ({@code struct rdma_conn_param}) may be NULL. */
    public static void connect(MemorySegment id, MemorySegment connParam) {
        callIdPtr("rdma_connect", H.CONNECT, id, connParam);
    }

    /** {@code rdma_accept} on the new id of a CONNECT_REQUEST; {@code connParam} may be NULL. */
    public static void accept(MemorySegment id, MemorySegment connParam) {
        callIdPtr("rdma_accept", H.ACCEPT, id, connParam);
    }

    /**
     * {@code rdma_reject} with {@code privateData} (NULL or up to 255 bytes; IB CM carries 148).
     *
     * @throws IllegalArgumentException when the private data is longer than 255 bytes
     */
    public static void reject(MemorySegment id, MemorySegment privateData) {
        Pointers.require(id, "id", "rdma_reject");
        long len = privateData.address() == 0 ? 0 : privateData.byteSize();
        if (len > 255) {
            throw new IllegalArgumentException("reject private data is limited to 255 bytes, got " + len);
        }
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.REJECT.invokeExact(cs.capture, id, privateData, (byte) len);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_reject", rc, cs);
    }

    /** {@code rdma_disconnect}: moves the QP to ERR (flushing posted WRs); DISCONNECTED follows on both sides. */
    public static void disconnect(MemorySegment id) {
        callId("rdma_disconnect", H.DISCONNECT, id);
    }

    /** {@code rdma_establish}: after CONNECT_RESPONSE on an id without a QP, once the user's QP is in RTS. */
    public static void establish(MemorySegment id) {
        callId("rdma_establish", H.ESTABLISH, id);
    }

    /** {@code rdma_notify}: report a QP async event (usually {@code IBV_EVENT_COMM_EST}) to the CM. */
    public static void notify(MemorySegment id, int ibvEventType) {
        callIdInt("rdma_notify", H.NOTIFY, id, ibvEventType);
    }

    /** {@code rdma_join_multicast}: completes with MULTICAST_JOIN (context in the event's private data) or MULTICAST_ERROR. */
    public static void joinMulticast(MemorySegment id, MemorySegment sockaddr, MemorySegment context) {
        Pointers.require(id, "id", "rdma_join_multicast");
        Pointers.require(sockaddr, "addr", "rdma_join_multicast");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.JOIN_MULTICAST.invokeExact(cs.capture, id, sockaddr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_join_multicast", rc, cs);
    }

    /** {@code rdma_join_multicast_ex} with a {@code struct rdma_cm_join_mc_attr_ex} (e.g. send-only full member). */
    public static void joinMulticastEx(MemorySegment id, MemorySegment joinAttr, MemorySegment context) {
        Pointers.require(id, "id", "rdma_join_multicast_ex");
        Pointers.require(joinAttr, "mc_join_attr", "rdma_join_multicast_ex");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.JOIN_MULTICAST_EX.invokeExact(cs.capture, id, joinAttr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_join_multicast_ex", rc, cs);
    }

    /** {@code rdma_leave_multicast}: also cancels a join in progress. */
    public static void leaveMulticast(MemorySegment id, MemorySegment sockaddr) {
        callIdPtr("rdma_leave_multicast", H.LEAVE_MULTICAST, id, sockaddr);
    }

    /** {@code rdma_get_src_port} as a host-order port (the C function returns network order); 0 when unbound. */
    public static int getSrcPort(MemorySegment id) {
        Pointers.require(id, "id", "rdma_get_src_port");
        try {
            return NetworkOrder.ntohs((short) H.GET_SRC_PORT.invokeExact(id));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code rdma_get_dst_port} as a host-order port; 0 when not connected. */
    public static int getDstPort(MemorySegment id) {
        Pointers.require(id, "id", "rdma_get_dst_port");
        try {
            return NetworkOrder.ntohs((short) H.GET_DST_PORT.invokeExact(id));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- QPs ----

    /**
     * {@code rdma_create_qp}: creates {@code id->qp} and lets the CM drive its state transitions.
     * {@code pd} may be NULL (the device's default PD); {@code initAttr} returns the granted capabilities.
     */
    public static void createQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        Pointers.require(id, "id", "rdma_create_qp");
        Pointers.require(initAttr, "qp_init_attr", "rdma_create_qp");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.CREATE_QP.invokeExact(cs.capture, id, pd, initAttr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_create_qp", rc, cs);
    }

    /**
     * {@code rdma_create_qp_ex}: {@link #createQp} from a {@code struct ibv_qp_init_attr_ex} (its {@code pd} and
     * {@code comp_mask} set), e.g. with send-ops flags for the {@code ibv_wr_*} verbs.
     */
    public static void createQpEx(MemorySegment id, MemorySegment initAttrEx) {
        Pointers.require(id, "id", "rdma_create_qp_ex");
        Pointers.require(initAttrEx, "qp_init_attr_ex", "rdma_create_qp_ex");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.CREATE_QP_EX.invokeExact(cs.capture, id, initAttrEx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_create_qp_ex", rc, cs);
    }

    /** {@code rdma_destroy_qp}: before {@link #destroyId}. */
    public static void destroyQp(MemorySegment id) {
        Pointers.require(id, "id", "rdma_destroy_qp");
        try {
            H.DESTROY_QP.invokeExact(id);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code rdma_init_qp_attr}: fills {@code qpAttr} for the next transition of a QP the user manages
     * (set {@code qp_state} first).
     *
     * @return the attribute mask to pass to {@code ibv_modify_qp}
     */
    public static int initQpAttr(MemorySegment id, MemorySegment qpAttr) {
        Pointers.require(id, "id", "rdma_init_qp_attr");
        Pointers.require(qpAttr, "qp_attr", "rdma_init_qp_attr");
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) H.INIT_QP_ATTR.invokeExact(cs.capture, id, qpAttr, cs.clearedOut0());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check("rdma_init_qp_attr", rc, cs);
        return cs.out0.get(JAVA_INT, 0);
    }

    // ---- address resolution and devices ----

    /**
     * {@code rdma_getaddrinfo}. {@code node} or {@code service} may be null (not both); {@code hints} may
     * be NULL. Free the result with {@link #freeaddrinfo}.
     *
     * @throws RdmaException ENODEV without an RDMA CM; a getaddrinfo error names the EAI code
     */
    public static MemorySegment getaddrinfo(String node, String service, MemorySegment hints) {
        if (node == null && service == null) {
            throw new IllegalArgumentException("rdma_getaddrinfo needs a node or a service");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = node == null ? MemorySegment.NULL : arena.allocateFrom(node);
            MemorySegment s = service == null ? MemorySegment.NULL : arena.allocateFrom(service);
            CallState cs = CallState.current();
            int rc;
            try {
                rc = (int) H.GETADDRINFO.invokeExact(cs.capture, n, s, hints, cs.clearedOut0());
            } catch (Throwable t) {
                throw Downcalls.rethrow(t);
            }
            if (rc == -1) {
                throw RdmaErrors.failure("rdma_getaddrinfo", cs.errno());
            }
            if (rc != 0) {
                // librdmacm passes getaddrinfo's own EAI_* codes through unchanged
                throw new RdmaException("rdma_getaddrinfo", 0, "cannot resolve " + (node == null ? "" : node)
                        + (service == null ? "" : ":" + service) + ": " + LibC.gaiStrerror(rc) + " (EAI " + rc + ")");
            }
            return cs.pointer0().reinterpret(RdmaAddrinfo.SIZE);
        }
    }

    /** {@code rdma_freeaddrinfo}: frees the whole {@code ai_next} list. */
    public static void freeaddrinfo(MemorySegment res) {
        try {
            H.FREEADDRINFO.invokeExact(res);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code rdma_get_devices}: the opened verbs contexts librdmacm uses, as an array segment of
     * {@code byteSize()/8} pointers. Release with {@link #freeDevices}.
     */
    public static MemorySegment getDevices() {
        CallState cs = CallState.current();
        MemorySegment list;
        try {
            list = (MemorySegment) H.GET_DEVICES.invokeExact(cs.capture, cs.clearedOut0());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (list.address() == 0) {
            throw RdmaErrors.failure("rdma_get_devices", cs.errno());
        }
        return list.reinterpret(8L * cs.out0.get(JAVA_INT, 0));
    }

    /** {@code rdma_free_devices}. */
    public static void freeDevices(MemorySegment list) {
        Pointers.require(list, "list", "rdma_free_devices");
        try {
            H.FREE_DEVICES.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- helpers ----

    private static void check(String verb, int rc, CallState cs) {
        if (rc != 0) {
            throw RdmaErrors.failure(verb, RdmaErrors.errnoOf(rc, cs.errno()));
        }
    }

    private static void callId(String verb, MethodHandle h, MemorySegment id) {
        Pointers.require(id, "id", verb);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, id);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }

    private static void callIdInt(String verb, MethodHandle h, MemorySegment id, int value) {
        Pointers.require(id, "id", verb);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, id, value);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }

    private static void callIdPtr(String verb, MethodHandle h, MemorySegment id, MemorySegment p) {
        Pointers.require(id, "id", verb);
        CallState cs = CallState.current();
        int rc;
        try {
            rc = (int) h.invokeExact(cs.capture, id, p);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        check(verb, rc, cs);
    }

    static String cString(MemorySegment p) {
        return dev.ibex.verbs.ffi.struct.Layouts.cString(p);
    }
}
