package dev.ibex.cm.spi;

/**
 * {@code struct ibv_qp_attr} with its {@code ibv_qp_attr_mask}: every setter also sets its mask bit, so
 * {@code new QpAttr().state(QpState.RTS).altPath(ah, 1, 14).pathMigState(MigState.REARM)} carries exactly the
 * attributes a modify should change. Mutable, like the C struct; not thread-safe.
 */
public final class QpAttr {
    public static final int STATE = 1;
    public static final int CUR_STATE = 1 << 1;
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int ACCESS_FLAGS = 1 << 3;
    public static final int PKEY_INDEX = 1 << 4;
    public static final int PORT = 1 << 5;
    public static final int QKEY = 1 << 6;
    public static final int AV = 1 << 7;
    public static final int PATH_MTU = 1 << 8;
    public static final int TIMEOUT = 1 << 9;
    public static final int RETRY_CNT = 1 << 10;
    public static final int RNR_RETRY = 1 << 11;
    public static final int RQ_PSN = 1 << 12;
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int ALT_PATH = 1 << 14;
    public static final int MIN_RNR_TIMER = 1 << 15;
    public static final int SQ_PSN = 1 << 16;
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int PATH_MIG_STATE = 1 << 18;
    public static final int CAP = 1 << 19;
    public static final int DEST_QPN = 1 << 20;
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

    /** Replaces the mask (providers filling a query result or {@code rdma_init_qp_attr}). */
    public QpAttr mask(int mask) {
        this.mask = mask;
        return this;
    }

    public boolean has(int bit) {
        return (mask & bit) != 0;
    }

    public QpState state() { return qpState; }
    public QpState curState() { return curQpState; }
    public Mtu pathMtu() { return pathMtu; }
    public MigState pathMigState() { return pathMigState; }
    public int qkey() { return qkey; }
    public int rqPsn() { return rqPsn; }
    public int sqPsn() { return sqPsn; }
    public int destQpNum() { return destQpNum; }
    public int accessFlags() { return accessFlags; }
    public QpCap cap() { return cap; }
    public AhAttr ahAttr() { return ahAttr; }
    public AhAttr altAhAttr() { return altAhAttr; }
    public int pkeyIndex() { return pkeyIndex; }
    public int altPkeyIndex() { return altPkeyIndex; }
    public boolean enSqdAsyncNotify() { return enSqdAsyncNotify; }
    public boolean sqDraining() { return sqDraining; }
    public int maxRdAtomic() { return maxRdAtomic; }
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    public int minRnrTimer() { return minRnrTimer; }
    public int portNum() { return portNum; }
    public int timeout() { return timeout; }
    public int retryCnt() { return retryCnt; }
    public int rnrRetry() { return rnrRetry; }
    public int altPortNum() { return altPortNum; }
    public int altTimeout() { return altTimeout; }
    public int rateLimit() { return rateLimit; }

    public QpAttr state(QpState s) { qpState = s; mask |= STATE; return this; }
    public QpAttr curState(QpState s) { curQpState = s; mask |= CUR_STATE; return this; }
    public QpAttr pathMtu(Mtu m) { pathMtu = m; mask |= PATH_MTU; return this; }
    public QpAttr pathMigState(MigState m) { pathMigState = m; mask |= PATH_MIG_STATE; return this; }
    public QpAttr qkey(int v) { qkey = v; mask |= QKEY; return this; }
    public QpAttr rqPsn(int v) { rqPsn = v & 0xFFFFFF; mask |= RQ_PSN; return this; }
    public QpAttr sqPsn(int v) { sqPsn = v & 0xFFFFFF; mask |= SQ_PSN; return this; }
    public QpAttr destQpNum(int v) { destQpNum = v; mask |= DEST_QPN; return this; }
    public QpAttr accessFlags(int v) { accessFlags = v; mask |= ACCESS_FLAGS; return this; }
    public QpAttr cap(QpCap v) { cap = v; mask |= CAP; return this; }
    public QpAttr ahAttr(AhAttr v) { ahAttr = v; mask |= AV; return this; }
    public QpAttr pkeyIndex(int v) { pkeyIndex = v; mask |= PKEY_INDEX; return this; }
    public QpAttr enSqdAsyncNotify(boolean v) { enSqdAsyncNotify = v; mask |= EN_SQD_ASYNC_NOTIFY; return this; }
    public QpAttr maxRdAtomic(int v) { maxRdAtomic = v; mask |= MAX_QP_RD_ATOMIC; return this; }
    public QpAttr maxDestRdAtomic(int v) { maxDestRdAtomic = v; mask |= MAX_DEST_RD_ATOMIC; return this; }
    public QpAttr minRnrTimer(int v) { minRnrTimer = v; mask |= MIN_RNR_TIMER; return this; }
    public QpAttr portNum(int v) { portNum = v; mask |= PORT; return this; }
    public QpAttr timeout(int v) { timeout = v; mask |= TIMEOUT; return this; }
    public QpAttr retryCnt(int v) { retryCnt = v; mask |= RETRY_CNT; return this; }
    public QpAttr rnrRetry(int v) { rnrRetry = v; mask |= RNR_RETRY; return this; }
    public QpAttr rateLimit(int v) { rateLimit = v; mask |= RATE_LIMIT; return this; }

    /** {@code IBV_QP_ALT_PATH}: the alternate address vector with its port, P_Key index and ACK timeout. */
    public QpAttr altPath(AhAttr ah, int port, int ackTimeout) {
        altAhAttr = ah;
        altPortNum = port;
        altTimeout = ackTimeout;
        mask |= ALT_PATH;
        return this;
    }

    public QpAttr altPkeyIndex(int v) { altPkeyIndex = v; mask |= ALT_PATH; return this; }

    /** Sets the draining flag (query results only; not a modifiable attribute). */
    public QpAttr sqDraining(boolean v) { sqDraining = v; return this; }

    @Override
    public String toString() {
        return "QpAttr[mask=0x" + Integer.toHexString(mask) + " state=" + qpState + " mig=" + pathMigState
                + " destQpn=" + destQpNum + " sqPsn=" + sqPsn + " rqPsn=" + rqPsn + "]";
    }
}
