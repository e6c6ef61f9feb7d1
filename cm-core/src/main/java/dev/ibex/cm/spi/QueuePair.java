package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp}. Posting is confined to one thread at a time (the framework's event loop); the provider
 * adds no locking of its own on the data path. {@link #modify} and {@link #query} follow the verbs rules: each
 * state transition accepts exactly its required and optional attributes, an invalid mask fails with
 * {@link dev.ibex.cm.RdmaException} EINVAL and changes nothing.
 */
public interface QueuePair extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.QUEUE_PAIR;
    }

    /** {@return the QP number (24 bits) peers address it by} */
    int qpNum();

    /** {@return the transport type: RC, UC or UD} */
    QpType type();

    /** {@return the protection domain the QP was created in} */
    ProtectionDomain pd();

    /** {@return the CQ that send, RDMA and bind completions go to} */
    CompletionQueue sendCq();

    /** {@return the CQ that receive completions go to} */
    CompletionQueue recvCq();

    /** {@return the shared receive queue the QP takes receives from, or {@code null} when it has its own} */
    SharedReceiveQueue srq();

    /** {@return the actual capacities (at least what was asked for)} */
    QpCap cap();

    /** {@return the user context ({@code ibv_qp.qp_context}): the framework's endpoint} */
    Object context();

    /**
     * Sets the user context.
     *
     * @param context what {@link #context()} returns from now on, or {@code null}
     */
    void context(Object context);

    /**
     * {@code ibv_modify_qp} with {@link QpAttr#mask()}.
     *
     * @param attr the attributes to change, exactly those of its mask
     * @throws dev.ibex.cm.RdmaException EINVAL when the mask does not fit the transition; nothing changes
     */
    void modify(QpAttr attr);

    /**
     * {@code ibv_query_qp}.
     *
     * @param mask the {@code ibv_qp_attr_mask} bits wanted, or {@link QpAttr#ALL}
     * @return the QP's attributes now
     */
    QpAttr query(int mask);

    /** {@return the current state ({@code ibv_query_qp} of {@link QpAttr#STATE})} */
    default QpState state() {
        return query(QpAttr.STATE).state();
    }

    /**
     * {@code ibv_post_send} of WRs 0..count-1 of {@code batch}. Allocates nothing on success.
     *
     * @param batch the WRs
     * @param count how many of them to post, from WR 0
     * @throws PostException when a WR is refused (e.g. ENOMEM when the send queue is full); earlier WRs were posted
     */
    void postSend(SendBatch batch, int count);

    /**
     * Posts WRs 0..count-1 of {@code batch} all or none: what {@link WrBatch#complete()} calls. A provider that can
     * check the whole chain before posting any of it (soft-roce: queue room and every WR) overrides this; the default
     * is {@link #postSend}, which may post a prefix when the device refuses a WR midway (e.g. the send queue fills).
     *
     * @param batch the WRs
     * @param count how many of them to post, from WR 0
     * @throws PostException when a WR is refused; {@link PostException#failedIndex()} says how many were posted
     */
    default void postSendAll(SendBatch batch, int count) {
        postSend(batch, count);
    }

    /**
     * The QP's extended-posting builder ({@code ibv_qp_to_qp_ex}): the same {@link WrBatch} every time, made on
     * first use with {@link WrBatch#allocate}.
     *
     * @return the QP's batch builder
     */
    WrBatch wrBatch();

    /**
     * {@code ibv_wr_start}: opens the QP's {@link WrBatch}; build WRs on it, then {@link WrBatch#complete()} or
     * {@link WrBatch#abort()}. {@link #postSend} batches may come between two WR batches, not inside one.
     *
     * @return the open batch builder
     * @throws IllegalStateException when the QP's batch is already open
     */
    default WrBatch startWr() {
        return wrBatch().start();
    }

    /**
     * {@code ibv_post_recv} of WRs 0..count-1; see {@link #postSend}. On a QP with an SRQ it fails with
     * {@link PostException} EINVAL at index 0: receives go to the SRQ.
     *
     * @param batch the WRs
     * @param count how many of them to post, from WR 0
     * @throws PostException when a WR is refused; earlier WRs were posted
     */
    void postRecv(RecvBatch batch, int count);

    /**
     * {@code ibv_bind_mw} of a type 1 window: posts a bind work request ({@code wrId}, {@link SendFlags}) that gives
     * {@code mw} the range {@code [addr, addr + length)} of {@code mr} with {@code access} ({@link Access} bits); its
     * completion ({@link WcOpcode#BIND_MW}) arrives on the send CQ. {@code mr == null} and length 0 unbind.
     *
     * @param mw the type 1 window
     * @param wrId the bind's work request id
     * @param sendFlags {@link SendFlags} bits, e.g. signaled
     * @param mr the region to bind within, or {@code null} to unbind
     * @param addr the range's start address
     * @param length the range's length in bytes, 0 to unbind
     * @param access the rights the window grants, {@link Access} bits
     * @return the window's new rkey (its consumer key advanced, see {@link MemoryWindow#nextRkey})
     * @throws dev.ibex.cm.RdmaException EINVAL for a type 2 window (bind those with {@link SendBatch#bindMw}), EPERM
     *     when the region belongs to another PD, ENOTSUP when the device has no memory windows
     */
    default int bindMemoryWindow(MemoryWindow mw, long wrId, int sendFlags, MemoryRegion mr, long addr, long length,
            int access) {
        throw new dev.ibex.cm.RdmaException("ibv_bind_mw", dev.ibex.cm.Errno.ENOTSUP,
                "the device has no memory windows");
    }

    /**
     * {@code ibv_attach_mcast} (UD only): datagrams sent to the group reach this QP.
     *
     * @param gid the group's GID (for IP groups, the address mapped as the CM does)
     * @param lid the group's multicast LID (0 on RoCE)
     */
    void attachMulticast(Gid gid, int lid);

    /**
     * {@code ibv_detach_mcast}.
     *
     * @param gid the group's GID, as attached
     * @param lid the group's multicast LID, as attached
     */
    void detachMulticast(Gid gid, int lid);

    /** {@link #receiveDrops()} of a device that does not report them. */
    long DROPS_NOT_VISIBLE = -1;

    /**
     * Messages that reached this UD QP and were dropped by the device instead of completing a receive: no receive
     * posted, a Q_Key mismatch, longer than the receive buffer, the QP not ready — what a NIC discards silently. A
     * provider that sees its own drops (soft-roce) counts them; a hardware device (rdma-core) does not report them per
     * QP, and this is {@link #DROPS_NOT_VISIBLE}. Keeps its value after close. Any thread; allocation-free.
     *
     * @return the messages dropped so far, or {@link #DROPS_NOT_VISIBLE}
     */
    default long receiveDrops() {
        return DROPS_NOT_VISIBLE;
    }
}
