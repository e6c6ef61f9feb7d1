package dev.ibex.cm.spi;

import java.net.InetSocketAddress;

/**
 * An RDMA CM identifier ({@code struct rdma_cm_id}): conceptually a socket. Operations are asynchronous; their
 * outcome arrives as a {@link CmEvent} on {@link #channel()}. An id is confined to the thread that polls its
 * channel (the framework's event loop), except {@link #close()}.
 *
 * <p>Every method that takes private data enforces the limits of rdma-core before any native call and throws
 * {@link IllegalArgumentException} when they are exceeded. Methods throw {@link IllegalStateException} after
 * {@link #close()} and {@link dev.ibex.cm.RdmaException} when the provider refuses.
 */
public interface CmId extends ResourceTracker.Tracked {

    /** Private-data limit of {@link #connect} on a TCP (RC) id. */
    int MAX_CONNECT_PRIVATE_DATA_TCP = 56;
    /** Private-data limit of {@link #connect} on a UDP id (SIDR_REQ). */
    int MAX_CONNECT_PRIVATE_DATA_UDP = 180;
    /** Private-data limit of {@link #accept} (REP). */
    int MAX_ACCEPT_PRIVATE_DATA = 196;
    /** Private-data limit of {@link #accept} on a UDP id (SIDR_REP). */
    int MAX_ACCEPT_PRIVATE_DATA_UDP = 136;
    /** Private-data limit of {@link #reject} (REJ). */
    int MAX_REJECT_PRIVATE_DATA = 148;
    /** Private-data limit of {@link #reject} on a UDP id (a SIDR_REP with status REJECT). */
    int MAX_REJECT_PRIVATE_DATA_UDP = 136;

    @Override
    default ResourceKind kind() {
        return ResourceKind.CM_ID;
    }

    EventChannel channel();

    PortSpace portSpace();

    /** The QP type of this id ({@link QpType#RC} for TCP, {@link QpType#UD} for UDP). */
    QpType qpType();

    Object context();

    void context(Object context);

    /** {@code rdma_set_option}. */
    void setOption(CmOption option, int value);

    /** {@code rdma_bind_addr}; port 0 picks a free port. Binding to a specific address binds to its device. */
    void bind(InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr} → {@code ADDR_RESOLVED} or {@code ADDR_ERROR}. A routing failure may be reported
     * synchronously (thrown), as the kernel does.
     *
     * @param source optional source address ({@code null}: chosen from the routing tables)
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs);

    /** {@code rdma_resolve_route} → {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR}. */
    void resolveRoute(int timeoutMs);

    /** {@code rdma_listen}: connection requests arrive as {@code CONNECT_REQUEST} with new ids. */
    void listen(int backlog);

    /**
     * {@code rdma_connect}: RC ids send a connection request ({@code ESTABLISHED}, {@code REJECTED},
     * {@code UNREACHABLE} or {@code CONNECT_ERROR} follows); UD ids look up the remote QP (SIDR;
     * {@code ESTABLISHED} carries {@link UdParam}).
     */
    void connect(ConnParam param);

    /** {@code rdma_accept} on an id from {@code CONNECT_REQUEST}. */
    void accept(ConnParam param);

    /** {@code rdma_reject} with up to {@value #MAX_REJECT_PRIVATE_DATA} bytes. */
    void reject(byte[] privateData);

    /** IB CM reject reason: no resources (IBA 12.6.7.2, {@code IB_CM_REJ_NO_RESOURCES}). */
    int REJECT_NO_RESOURCES = 3;

    /**
     * Rejects with an IB CM reject reason of the provider's choice where it can send one (soft-roce); librdmacm
     * always sends 28 (consumer defined), so by default this is {@link #reject(byte[])}.
     */
    default void reject(byte[] privateData, int ibRejectReason) {
        reject(privateData);
    }

    /**
     * {@code rdma_disconnect}: the QP goes to ERR (posted work flushes) and a DREQ is sent (or the DREP, when the
     * peer disconnected first). The side that receives {@code DISCONNECTED} must call {@code disconnect()} too; on
     * the kernel CM the initiator's own {@code DISCONNECTED} arrives only once the peer has answered.
     */
    void disconnect();

    /** {@code rdma_establish}: completes a connection whose id has no QP, after {@code CONNECT_RESPONSE}. */
    void establish();

    /** {@code rdma_notify}: tells the CM about a QP async event (e.g. COMM_EST). */
    void notify(AsyncEventType event);

    /**
     * {@code rdma_join_multicast_ex}: joins (and once joined attaches this id's QP to) the group;
     * {@code MULTICAST_JOIN} or {@code MULTICAST_ERROR} follows, carrying {@code context}.
     *
     * @param sendOnly a send-only full member ({@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}) receives nothing
     */
    void joinMulticast(InetSocketAddress group, boolean sendOnly, Object context);

    /** {@code rdma_leave_multicast}: detaches and leaves; cancels a join still in progress. */
    void leaveMulticast(InetSocketAddress group);

    /** {@code rdma_migrate_id}: later events of this id arrive on {@code channel}. */
    void migrate(EventChannel channel);

    /** The device the id is bound to, or {@code null} before bind/resolve. */
    DeviceContext device();

    /** The port number on {@link #device()}, 0 when unbound. */
    int portNum();

    /** The resolved route, or {@code null} before {@code ROUTE_RESOLVED} (or a connect request's route). */
    PathRecord route();

    /**
     * {@code rdma_init_qp_attr}: the attributes the CM would use to move a QP to {@code state} on this id.
     * The mask of attributes set is stored in {@link QpAttr#mask()}.
     */
    QpAttr initQpAttr(QpState state);

    /**
     * {@code rdma_create_qp}: a QP bound to this id whose state transitions the CM drives (connected QPs reach
     * RTS when the connection is established; UD QPs are ready to send at once).
     */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr);

    /** The id's QP, or {@code null}. */
    QueuePair qp();

    /** {@code rdma_destroy_qp}. */
    void destroyQp();

    InetSocketAddress localAddress();

    InetSocketAddress peerAddress();

    /**
     * {@code rdma_destroy_id}: destroys the id's QP first (and leaves its groups), then the id. Idempotent.
     */
    @Override
    void close();
}
