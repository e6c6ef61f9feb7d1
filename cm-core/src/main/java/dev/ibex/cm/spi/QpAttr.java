package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp_attr} with its {@code ibv_qp_attr_mask}: every setter also sets its mask bit, so
 * {@code new QpAttr().state(QpState.RTS).altPath(ah, 1, 14).pathMigState(MigState.REARM)} carries exactly the
 * attributes a modify should change. Mutable, like the C struct; not thread-safe.
 */
public final class QpAttr {
    /** {@code IBV_QP_STATE}: the QP state to move to ({@link #state(QpState)}). */
    public static final int STATE = 1;
    /** {@code IBV_QP_CUR_STATE}: the state the caller believes the QP is in ({@link #curState(QpState)}). */
    public static final int CUR_STATE = 1 << 1;
    /** {@code IBV_QP_EN_SQD_ASYNC_NOTIFY}: whether entering SQD raises {@code IBV_EVENT_SQ_DRAINED}. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code IBV_QP_ACCESS_FLAGS}: the remote access the QP allows ({@link #accessFlags(int)}). */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** {@code IBV_QP_PKEY_INDEX}: the primary path's P_Key index. */
    public static final int PKEY_INDEX = 1 << 4;
    /** {@code IBV_QP_PORT}: the primary path's port number. */
    public static final int PORT = 1 << 5;
    /** {@code IBV_QP_QKEY}: the Q_Key of a UD QP. */
    public static final int QKEY = 1 << 6;
    /** {@code IBV_QP_AV}: the primary path's address vector ({@link #ahAttr(AhAttr)}). */
    public static final int AV = 1 << 7;
    /** {@code IBV_QP_PATH_MTU}: the path MTU. */
    public static final int PATH_MTU = 1 << 8;
    /** {@code IBV_QP_TIMEOUT}: the local ACK timeout. */
    public static final int TIMEOUT = 1 << 9;
    /** {@code IBV_QP_RETRY_CNT}: the transport retry count. */
    public static final int RETRY_CNT = 1 << 10;
    /** {@code IBV_QP_RNR_RETRY}: the RNR retry count. */
    public static final int RNR_RETRY = 1 << 11;
    /** {@code IBV_QP_RQ_PSN}: the receive queue's starting PSN. */
    public static final int RQ_PSN = 1 << 12;
    /** {@code IBV_QP_MAX_QP_RD_ATOMIC}: the RDMA READ/atomic operations this QP may have outstanding as initiator. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /**
     * {@code IBV_QP_ALT_PATH}: the alternate path: address vector, port, P_Key index and ACK timeout
     * ({@link #altPath}).
     */
    public static final int ALT_PATH = 1 << 14;
    /** {@code IBV_QP_MIN_RNR_TIMER}: the minimum RNR NAK timer. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** {@code IBV_QP_SQ_PSN}: the send queue's starting PSN. */
    public static final int SQ_PSN = 1 << 16;
    /** {@code IBV_QP_MAX_DEST_RD_ATOMIC}: the RDMA READ/atomic operations this QP accepts outstanding as responder. */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code IBV_QP_PATH_MIG_STATE}: the automatic path migration state. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** {@code IBV_QP_CAP}: the queue capacities ({@link #cap(QpCap)}). */
    public static final int CAP = 1 << 19;
    /** {@code IBV_QP_DEST_QPN}: the remote QP number. */
    public static final int DEST_QPN = 1 << 20;
    /** {@code IBV_QP_RATE_LIMIT}: the packet pacing rate limit. */
    public static final int RATE_LIMIT = 1 << 25;
    /** Every attribute, for queries. */
    public static final int ALL = (1 << 21) - 1;

    private int mask;
    private QpState qpState = QpState.RESET;
    private QpState curQpState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private MigState pathMigState = MigState.MIGRATED;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int accessFlags;
    private QpCap cap;
    private AhAttr ahAttr;
    private AhAttr altAhAttr;
    private int pkeyIndex;
    private int altPkeyIndex;
    private boolean enSqdAsyncNotify;
    private boolean sqDraining;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int altPortNum;
    private int altTimeout;
    private int rateLimit;

    /** Attributes with nothing to change (an empty mask). */
    public QpAttr() {
    }

    /** {@return the {@code ibv_qp_attr_mask} of the attributes set} */
    public int mask() {
        return mask;
    }

    /**
     * Replaces the mask (providers filling a query result or {@code rdma_init_qp_attr}).
     *
     * @param mask the {@code ibv_qp_attr_mask} bits that count as set
     * @return this
     */
    public QpAttr mask(int mask) {
        this.mask = mask;
        return this;
    }

    /**
     * Whether an attribute is set.
     *
     * @param bit one of the mask constants, e.g. {@link #STATE}
     * @return whether the mask has it
     */
    public boolean has(int bit) {
        return (mask & bit) != 0;
    }

    /** {@return the QP state (a query's current state, or the state a modify moves to)} */
    public QpState state() { return qpState; }
    /** {@return the state the caller asserted the QP is in} */
    public QpState curState() { return curQpState; }
    /** {@return the path MTU} */
    public Mtu pathMtu() { return pathMtu; }
    /** {@return the automatic path migration state} */
    public MigState pathMigState() { return pathMigState; }
    /** {@return the Q_Key of a UD QP} */
    public int qkey() { return qkey; }
    /** {@return the receive queue's starting PSN (24 bits)} */
    public int rqPsn() { return rqPsn; }
    /** {@return the send queue's starting PSN (24 bits)} */
    public int sqPsn() { return sqPsn; }
    /** {@return the remote QP number of a connected QP} */
    public int destQpNum() { return destQpNum; }
    /** {@return the {@link Access} bits of the remote operations the QP allows} */
    public int accessFlags() { return accessFlags; }
    /** {@return the queue capacities, or {@code null} when not set} */
    public QpCap cap() { return cap; }
    /** {@return the primary path's address vector, or {@code null} when not set} */
    public AhAttr ahAttr() { return ahAttr; }
    /** {@return the alternate path's address vector, or {@code null} when not set} */
    public AhAttr altAhAttr() { return altAhAttr; }
    /** {@return the primary path's P_Key index} */
    public int pkeyIndex() { return pkeyIndex; }
    /** {@return the alternate path's P_Key index} */
    public int altPkeyIndex() { return altPkeyIndex; }
    /** {@return whether entering SQD raises {@code IBV_EVENT_SQ_DRAINED}} */
    public boolean enSqdAsyncNotify() { return enSqdAsyncNotify; }
    /** {@return whether the send queue is draining (query results, state SQD)} */
    public boolean sqDraining() { return sqDraining; }
    /** {@return how many RDMA READ/atomic operations this QP may have outstanding as initiator} */
    public int maxRdAtomic() { return maxRdAtomic; }
    /** {@return how many RDMA READ/atomic operations this QP accepts outstanding as responder} */
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    /** {@return the minimum RNR NAK timer, as the IB 5-bit encoding (e.g. 12 = 0.64 ms)} */
    public int minRnrTimer() { return minRnrTimer; }
    /** {@return the primary path's port number (from 1)} */
    public int portNum() { return portNum; }
    /** {@return the local ACK timeout exponent: 4.096 µs × 2^timeout, 0 for infinite} */
    public int timeout() { return timeout; }
    /** {@return how many times a request is retransmitted without ACK before the QP fails (0 to 7)} */
    public int retryCnt() { return retryCnt; }
    /** {@return how many times a request is retried after an RNR NAK (0 to 6, 7 for infinite)} */
    public int rnrRetry() { return rnrRetry; }
    /** {@return the alternate path's port number} */
    public int altPortNum() { return altPortNum; }
    /** {@return the alternate path's local ACK timeout exponent} */
    public int altTimeout() { return altTimeout; }
    /** {@return the packet pacing rate limit in kbps, 0 for none} */
    public int rateLimit() { return rateLimit; }

    /**
     * Sets the QP state and the mask bit {@link #STATE}.
     *
     * @param s the new value
     * @return this
     */
    public QpAttr state(QpState s) { qpState = s; mask |= STATE; return this; }
    /**
     * Sets the state the caller asserted the QP is in and the mask bit {@link #CUR_STATE}.
     *
     * @param s the new value
     * @return this
     */
    public QpAttr curState(QpState s) { curQpState = s; mask |= CUR_STATE; return this; }
    /**
     * Sets the path MTU and the mask bit {@link #PATH_MTU}.
     *
     * @param m the new value
     * @return this
     */
    public QpAttr pathMtu(Mtu m) { pathMtu = m; mask |= PATH_MTU; return this; }
    /**
     * Sets the automatic path migration state and the mask bit {@link #PATH_MIG_STATE}.
     *
     * @param m the new value
     * @return this
     */
    public QpAttr pathMigState(MigState m) { pathMigState = m; mask |= PATH_MIG_STATE; return this; }
    /**
     * Sets the Q_Key of a UD QP and the mask bit {@link #QKEY}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr qkey(int v) { qkey = v; mask |= QKEY; return this; }
    /**
     * Sets the receive queue's starting PSN (24 bits) and the mask bit {@link #RQ_PSN}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr rqPsn(int v) { rqPsn = v & 0xFFFFFF; mask |= RQ_PSN; return this; }
    /**
     * Sets the send queue's starting PSN (24 bits) and the mask bit {@link #SQ_PSN}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr sqPsn(int v) { sqPsn = v & 0xFFFFFF; mask |= SQ_PSN; return this; }
    /**
     * Sets the remote QP number of a connected QP and the mask bit {@link #DEST_QPN}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr destQpNum(int v) { destQpNum = v; mask |= DEST_QPN; return this; }
    /**
     * Sets the {@link Access} bits of the remote operations the QP allows and the mask bit {@link #ACCESS_FLAGS}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr accessFlags(int v) { accessFlags = v; mask |= ACCESS_FLAGS; return this; }
    /**
     * Sets the queue capacities and the mask bit {@link #CAP}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr cap(QpCap v) { cap = v; mask |= CAP; return this; }
    /**
     * Sets the primary path's address vector and the mask bit {@link #AV}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr ahAttr(AhAttr v) { ahAttr = v; mask |= AV; return this; }
    /**
     * Sets the primary path's P_Key index and the mask bit {@link #PKEY_INDEX}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr pkeyIndex(int v) { pkeyIndex = v; mask |= PKEY_INDEX; return this; }
    /**
     * Sets whether entering SQD raises {@code IBV_EVENT_SQ_DRAINED} and the mask bit {@link #EN_SQD_ASYNC_NOTIFY}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr enSqdAsyncNotify(boolean v) { enSqdAsyncNotify = v; mask |= EN_SQD_ASYNC_NOTIFY; return this; }
    /**
     * Sets how many RDMA READ/atomic operations this QP may have outstanding as initiator and the mask bit
     * {@link #MAX_QP_RD_ATOMIC}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr maxRdAtomic(int v) { maxRdAtomic = v; mask |= MAX_QP_RD_ATOMIC; return this; }
    /**
     * Sets how many RDMA READ/atomic operations this QP accepts outstanding as responder and the mask bit
     * {@link #MAX_DEST_RD_ATOMIC}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr maxDestRdAtomic(int v) { maxDestRdAtomic = v; mask |= MAX_DEST_RD_ATOMIC; return this; }
    /**
     * Sets the minimum RNR NAK timer, as the IB 5-bit encoding (e.g. 12 = 0.64 ms) and the mask bit
     * {@link #MIN_RNR_TIMER}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr minRnrTimer(int v) { minRnrTimer = v; mask |= MIN_RNR_TIMER; return this; }
    /**
     * Sets the primary path's port number (from 1) and the mask bit {@link #PORT}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr portNum(int v) { portNum = v; mask |= PORT; return this; }
    /**
     * Sets the local ACK timeout exponent: 4.096 µs × 2^timeout, 0 for infinite and the mask bit {@link #TIMEOUT}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr timeout(int v) { timeout = v; mask |= TIMEOUT; return this; }
    /**
     * Sets how many times a request is retransmitted without ACK before the QP fails (0 to 7) and the mask bit
     * {@link #RETRY_CNT}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr retryCnt(int v) { retryCnt = v; mask |= RETRY_CNT; return this; }
    /**
     * Sets how many times a request is retried after an RNR NAK (0 to 6, 7 for infinite) and the mask bit
     * {@link #RNR_RETRY}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr rnrRetry(int v) { rnrRetry = v; mask |= RNR_RETRY; return this; }
    /**
     * Sets the packet pacing rate limit in kbps, 0 for none and the mask bit {@link #RATE_LIMIT}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr rateLimit(int v) { rateLimit = v; mask |= RATE_LIMIT; return this; }

    /**
     * {@code IBV_QP_ALT_PATH}: the alternate address vector with its port, P_Key index and ACK timeout.
     *
     * @param ah the alternate path's address vector
     * @param port the alternate path's port number
     * @param ackTimeout the alternate path's local ACK timeout exponent
     * @return this
     */
    public QpAttr altPath(AhAttr ah, int port, int ackTimeout) {
        altAhAttr = ah;
        altPortNum = port;
        altTimeout = ackTimeout;
        mask |= ALT_PATH;
        return this;
    }

    /**
     * Sets the alternate path's P_Key index and the mask bit {@link #ALT_PATH}.
     *
     * @param v the new value
     * @return this
     */
    public QpAttr altPkeyIndex(int v) { altPkeyIndex = v; mask |= ALT_PATH; return this; }

    /**
     * Sets the draining flag (query results only; not a modifiable attribute).
     *
     * @param v whether the send queue is draining
     * @return this
     */
    public QpAttr sqDraining(boolean v) { sqDraining = v; return this; }

    @Override
    public String toString() {
        return "QpAttr[mask=0x" + Integer.toHexString(mask) + " state=" + qpState + " mig=" + pathMigState
                + " destQpn=" + destQpNum + " sqPsn=" + sqPsn + " rqPsn=" + rqPsn + "]";
    }
}
