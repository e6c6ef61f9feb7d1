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

    /** {@return the channel this id's events arrive on (it changes with {@link #migrate})} */
    EventChannel channel();

    /** {@return the port space the id was created in: TCP (connected, RC) or UDP (datagrams, UD)} */
    PortSpace portSpace();

    /** {@return the QP type of this id ({@link QpType#RC} for TCP, {@link QpType#UD} for UDP)} */
    QpType qpType();

    /** {@return the user context the id carries ({@code rdma_cm_id.context}): the framework's endpoint} */
    Object context();

    /**
     * Sets the user context.
     *
     * @param context what {@link #context()} returns from now on, or {@code null}
     */
    void context(Object context);

    /**
     * {@code rdma_set_option}.
     *
     * @param option the option
     * @param value its value (e.g. a ToS byte, or 1 to turn a flag on)
     */
    void setOption(CmOption option, int value);

    /**
     * {@code rdma_bind_addr}; port 0 picks a free port. Binding to a specific address binds to its device.
     *
     * @param address the local address and port; the wildcard address binds to no device yet
     */
    void bind(InetSocketAddress address);

    /**
     * {@code rdma_resolve_addr} → {@code ADDR_RESOLVED} or {@code ADDR_ERROR}. A routing failure may be reported
     * synchronously (thrown), as the kernel does.
     *
     * @param source optional source address ({@code null}: chosen from the routing tables)
     * @param destination the peer's address (its port is the peer's service, for a later connect)
     * @param timeoutMs how long resolution may take before {@code ADDR_ERROR}, in milliseconds
     */
    void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs);

    /**
     * {@code rdma_resolve_route} → {@code ROUTE_RESOLVED} or {@code ROUTE_ERROR}.
     *
     * @param timeoutMs how long resolution may take before {@code ROUTE_ERROR}, in milliseconds
     */
    void resolveRoute(int timeoutMs);

    /**
     * {@code rdma_listen}: connection requests arrive as {@code CONNECT_REQUEST} with new ids.
     *
     * @param backlog the most requests pending an answer (the provider may cap it)
     */
    void listen(int backlog);

    /**
     * {@code rdma_connect}: RC ids send a connection request ({@code ESTABLISHED}, {@code REJECTED},
     * {@code UNREACHABLE} or {@code CONNECT_ERROR} follows); UD ids look up the remote QP (SIDR;
     * {@code ESTABLISHED} carries {@link UdParam}).
     *
     * @param param RDMA READ depths, retry counts and private data (at most {@value #MAX_CONNECT_PRIVATE_DATA_TCP}
     *     bytes on TCP ids, {@value #MAX_CONNECT_PRIVATE_DATA_UDP} on UDP ids)
     */
    void connect(ConnParam param);

    /**
     * {@code rdma_accept} on an id from {@code CONNECT_REQUEST}.
     *
     * @param param the answer's parameters and private data (at most {@value #MAX_ACCEPT_PRIVATE_DATA} bytes, on
     *     UDP ids {@value #MAX_ACCEPT_PRIVATE_DATA_UDP})
     */
    void accept(ConnParam param);

    /**
     * {@code rdma_reject} with up to {@value #MAX_REJECT_PRIVATE_DATA} bytes.
     *
     * @param privateData what the requester's {@code REJECTED} event carries (at most
     *     {@value #MAX_REJECT_PRIVATE_DATA} bytes, on UDP ids {@value #MAX_REJECT_PRIVATE_DATA_UDP}), or {@code null}
     */
    void reject(byte[] privateData);

    /** IB CM reject reason: no resources (IBA 12.6.7.2, {@code IB_CM_REJ_NO_RESOURCES}). */
    int REJECT_NO_RESOURCES = 3;

    /**
     * Rejects with an IB CM reject reason of the provider's choice where it can send one (soft-roce); librdmacm
     * always sends 28 (consumer defined), so by default this is {@link #reject(byte[])}.
     *
     * @param privateData what the requester's {@code REJECTED} event carries, or {@code null}
     * @param ibRejectReason the IB CM reject reason, e.g. {@link #REJECT_NO_RESOURCES}
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

    /**
     * {@code rdma_notify}: tells the CM about a QP async event (e.g. COMM_EST).
     *
     * @param event the event the id's QP received
     */
    void notify(AsyncEventType event);

    /**
     * {@code rdma_join_multicast_ex}: joins (and once joined attaches this id's QP to) the group;
     * {@code MULTICAST_JOIN} or {@code MULTICAST_ERROR} follows, carrying {@code context}.
     *
     * @param group the multicast group's address
     * @param sendOnly a send-only full member ({@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}) receives nothing
     * @param context what the join's event carries, to tell joins apart
     */
    void joinMulticast(InetSocketAddress group, boolean sendOnly, Object context);

    /**
     * {@code rdma_leave_multicast}: detaches and leaves; cancels a join still in progress.
     *
     * @param group the group's address, as joined
     */
    void leaveMulticast(InetSocketAddress group);

    /**
     * {@code rdma_migrate_id}: later events of this id arrive on {@code channel}.
     *
     * @param channel the channel to move to (events already queued move with the id)
     */
    void migrate(EventChannel channel);

    /** {@return the device the id is bound to, or {@code null} before bind/resolve} */
    DeviceContext device();

    /** {@return the port number on {@link #device()}, 0 when unbound} */
    int portNum();

    /** {@return the resolved route (or a connect request's route), or {@code null} before {@code ROUTE_RESOLVED}} */
    PathRecord route();

    /**
     * {@code rdma_init_qp_attr}: the attributes the CM would use to move a QP to {@code state} on this id.
     * The mask of attributes set is stored in {@link QpAttr#mask()}.
     *
     * @param state the state the QP is to move to (INIT, RTR or RTS)
     * @return the attributes, for {@link QueuePair#modify}
     */
    QpAttr initQpAttr(QpState state);

    /**
     * {@code rdma_create_qp}: a QP bound to this id whose state transitions the CM drives (connected QPs reach
     * RTS when the connection is established; UD QPs are ready to send at once).
     *
     * @param pd the protection domain of the QP, on the id's device
     * @param attr the QP's type, CQs, SRQ and capacities
     * @return the QP, also {@link #qp()} from now on
     */
    QueuePair createQp(ProtectionDomain pd, QpInitAttr attr);

    /** {@return the id's QP, or {@code null} when it has none} */
    QueuePair qp();

    /** {@code rdma_destroy_qp}. */
    void destroyQp();

    /** {@return the id's local address and port, or {@code null} before bind/resolve} */
    InetSocketAddress localAddress();

    /** {@return the peer's address and port (the resolved destination, or the requester's), or {@code null}} */
    InetSocketAddress peerAddress();

    /**
     * {@code rdma_destroy_id}: destroys the id's QP first (and leaves its groups), then the id. Idempotent.
     */
    @Override
    void close();
}
