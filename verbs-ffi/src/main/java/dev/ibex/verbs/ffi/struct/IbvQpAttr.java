package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_qp_attr}: QP attributes for {@code ibv_modify_qp}, {@code ibv_query_qp} and
 * {@code rdma_init_qp_attr}; which fields count is given by an {@code IbvQpAttrMask} mask. The
 * {@code ah_attr}/{@code alt_ah_attr} slices are written with {@link IbvAhAttr}.
 */
public final class IbvQpAttr {
    /** {@code struct ibv_qp_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U32.withName("qp_state"),
            U32.withName("cur_qp_state"),
            U32.withName("path_mtu"),
            U32.withName("path_mig_state"),
            U32.withName("qkey"),
            U32.withName("rq_psn"),
            U32.withName("sq_psn"),
            U32.withName("dest_qp_num"),
            U32.withName("qp_access_flags"),
            IbvQpCap.LAYOUT.withName("cap"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
            U16.withName("pkey_index"),
            U16.withName("alt_pkey_index"),
            U8.withName("en_sqd_async_notify"),
            U8.withName("sq_draining"),
            U8.withName("max_rd_atomic"),
            U8.withName("max_dest_rd_atomic"),
            U8.withName("min_rnr_timer"),
            U8.withName("port_num"),
            U8.withName("timeout"),
            U8.withName("retry_cnt"),
            U8.withName("rnr_retry"),
            U8.withName("alt_port_num"),
            U8.withName("alt_timeout"),
            pad(1),
            U32.withName("rate_limit"),
            pad(4))
            .withName("ibv_qp_attr");
    /** {@code sizeof(struct ibv_qp_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_qp_attr, qp_state)}. */
    public static final long OFFSET_QP_STATE = offset(LAYOUT, "qp_state");
    /** {@code offsetof(struct ibv_qp_attr, cur_qp_state)}. */
    public static final long OFFSET_CUR_QP_STATE = offset(LAYOUT, "cur_qp_state");
    /** {@code offsetof(struct ibv_qp_attr, path_mtu)}. */
    public static final long OFFSET_PATH_MTU = offset(LAYOUT, "path_mtu");
    /** {@code offsetof(struct ibv_qp_attr, path_mig_state)}. */
    public static final long OFFSET_PATH_MIG_STATE = offset(LAYOUT, "path_mig_state");
    /** {@code offsetof(struct ibv_qp_attr, qkey)}. */
    public static final long OFFSET_QKEY = offset(LAYOUT, "qkey");
    /** {@code offsetof(struct ibv_qp_attr, rq_psn)}. */
    public static final long OFFSET_RQ_PSN = offset(LAYOUT, "rq_psn");
    /** {@code offsetof(struct ibv_qp_attr, sq_psn)}. */
    public static final long OFFSET_SQ_PSN = offset(LAYOUT, "sq_psn");
    /** {@code offsetof(struct ibv_qp_attr, dest_qp_num)}. */
    public static final long OFFSET_DEST_QP_NUM = offset(LAYOUT, "dest_qp_num");
    /** {@code offsetof(struct ibv_qp_attr, qp_access_flags)}. */
    public static final long OFFSET_QP_ACCESS_FLAGS = offset(LAYOUT, "qp_access_flags");
    /** {@code offsetof(struct ibv_qp_attr, cap)}. */
    public static final long OFFSET_CAP = offset(LAYOUT, "cap");
    /** {@code offsetof(struct ibv_qp_attr, ah_attr)}. */
    public static final long OFFSET_AH_ATTR = offset(LAYOUT, "ah_attr");
    /** {@code offsetof(struct ibv_qp_attr, alt_ah_attr)}. */
    public static final long OFFSET_ALT_AH_ATTR = offset(LAYOUT, "alt_ah_attr");
    /** {@code offsetof(struct ibv_qp_attr, pkey_index)}. */
    public static final long OFFSET_PKEY_INDEX = offset(LAYOUT, "pkey_index");
    /** {@code offsetof(struct ibv_qp_attr, alt_pkey_index)}. */
    public static final long OFFSET_ALT_PKEY_INDEX = offset(LAYOUT, "alt_pkey_index");
    /** {@code offsetof(struct ibv_qp_attr, en_sqd_async_notify)}. */
    public static final long OFFSET_EN_SQD_ASYNC_NOTIFY = offset(LAYOUT, "en_sqd_async_notify");
    /** {@code offsetof(struct ibv_qp_attr, sq_draining)}. */
    public static final long OFFSET_SQ_DRAINING = offset(LAYOUT, "sq_draining");
    /** {@code offsetof(struct ibv_qp_attr, max_rd_atomic)}. */
    public static final long OFFSET_MAX_RD_ATOMIC = offset(LAYOUT, "max_rd_atomic");
    /** {@code offsetof(struct ibv_qp_attr, max_dest_rd_atomic)}. */
    public static final long OFFSET_MAX_DEST_RD_ATOMIC = offset(LAYOUT, "max_dest_rd_atomic");
    /** {@code offsetof(struct ibv_qp_attr, min_rnr_timer)}. */
    public static final long OFFSET_MIN_RNR_TIMER = offset(LAYOUT, "min_rnr_timer");
    /** {@code offsetof(struct ibv_qp_attr, port_num)}. */
    public static final long OFFSET_PORT_NUM = offset(LAYOUT, "port_num");
    /** {@code offsetof(struct ibv_qp_attr, timeout)}. */
    public static final long OFFSET_TIMEOUT = offset(LAYOUT, "timeout");
    /** {@code offsetof(struct ibv_qp_attr, retry_cnt)}. */
    public static final long OFFSET_RETRY_CNT = offset(LAYOUT, "retry_cnt");
    /** {@code offsetof(struct ibv_qp_attr, rnr_retry)}. */
    public static final long OFFSET_RNR_RETRY = offset(LAYOUT, "rnr_retry");
    /** {@code offsetof(struct ibv_qp_attr, alt_port_num)}. */
    public static final long OFFSET_ALT_PORT_NUM = offset(LAYOUT, "alt_port_num");
    /** {@code offsetof(struct ibv_qp_attr, alt_timeout)}. */
    public static final long OFFSET_ALT_TIMEOUT = offset(LAYOUT, "alt_timeout");
    /** {@code offsetof(struct ibv_qp_attr, rate_limit)}. */
    public static final long OFFSET_RATE_LIMIT = offset(LAYOUT, "rate_limit");

    private IbvQpAttr() {
    }

    public static int qpState(MemorySegment s) {
        return s.get(U32, OFFSET_QP_STATE);
    }

    public static void qpState(MemorySegment s, int v) {
        s.set(U32, OFFSET_QP_STATE, v);
    }

    public static int curQpState(MemorySegment s) {
        return s.get(U32, OFFSET_CUR_QP_STATE);
    }

    public static void curQpState(MemorySegment s, int v) {
        s.set(U32, OFFSET_CUR_QP_STATE, v);
    }

    public static int pathMtu(MemorySegment s) {
        return s.get(U32, OFFSET_PATH_MTU);
    }

    public static void pathMtu(MemorySegment s, int v) {
        s.set(U32, OFFSET_PATH_MTU, v);
    }

    public static int pathMigState(MemorySegment s) {
        return s.get(U32, OFFSET_PATH_MIG_STATE);
    }

    public static void pathMigState(MemorySegment s, int v) {
        s.set(U32, OFFSET_PATH_MIG_STATE, v);
    }

    public static int qkey(MemorySegment s) {
        return s.get(U32, OFFSET_QKEY);
    }

    public static void qkey(MemorySegment s, int v) {
        s.set(U32, OFFSET_QKEY, v);
    }

    public static int rqPsn(MemorySegment s) {
        return s.get(U32, OFFSET_RQ_PSN);
    }

    public static void rqPsn(MemorySegment s, int v) {
        s.set(U32, OFFSET_RQ_PSN, v);
    }

    public static int sqPsn(MemorySegment s) {
        return s.get(U32, OFFSET_SQ_PSN);
    }

    public static void sqPsn(MemorySegment s, int v) {
        s.set(U32, OFFSET_SQ_PSN, v);
    }

    public static int destQpNum(MemorySegment s) {
        return s.get(U32, OFFSET_DEST_QP_NUM);
    }

    public static void destQpNum(MemorySegment s, int v) {
        s.set(U32, OFFSET_DEST_QP_NUM, v);
    }

    public static int qpAccessFlags(MemorySegment s) {
        return s.get(U32, OFFSET_QP_ACCESS_FLAGS);
    }

    public static void qpAccessFlags(MemorySegment s, int v) {
        s.set(U32, OFFSET_QP_ACCESS_FLAGS, v);
    }

    public static MemorySegment cap(MemorySegment s) {
        return s.asSlice(OFFSET_CAP, IbvQpCap.SIZE);
    }

    public static MemorySegment ahAttr(MemorySegment s) {
        return s.asSlice(OFFSET_AH_ATTR, IbvAhAttr.SIZE);
    }

    public static MemorySegment altAhAttr(MemorySegment s) {
        return s.asSlice(OFFSET_ALT_AH_ATTR, IbvAhAttr.SIZE);
    }

    public static int pkeyIndex(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_PKEY_INDEX));
    }

    public static void pkeyIndex(MemorySegment s, int v) {
        s.set(U16, OFFSET_PKEY_INDEX, (short) v);
    }

    public static int altPkeyIndex(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_ALT_PKEY_INDEX));
    }

    public static void altPkeyIndex(MemorySegment s, int v) {
        s.set(U16, OFFSET_ALT_PKEY_INDEX, (short) v);
    }

    public static int enSqdAsyncNotify(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_EN_SQD_ASYNC_NOTIFY));
    }

    public static void enSqdAsyncNotify(MemorySegment s, int v) {
        s.set(U8, OFFSET_EN_SQD_ASYNC_NOTIFY, (byte) v);
    }

    public static int sqDraining(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_SQ_DRAINING));
    }

    public static void sqDraining(MemorySegment s, int v) {
        s.set(U8, OFFSET_SQ_DRAINING, (byte) v);
    }

    public static int maxRdAtomic(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_MAX_RD_ATOMIC));
    }

    public static void maxRdAtomic(MemorySegment s, int v) {
        s.set(U8, OFFSET_MAX_RD_ATOMIC, (byte) v);
    }

    public static int maxDestRdAtomic(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_MAX_DEST_RD_ATOMIC));
    }

    public static void maxDestRdAtomic(MemorySegment s, int v) {
        s.set(U8, OFFSET_MAX_DEST_RD_ATOMIC, (byte) v);
    }

    public static int minRnrTimer(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_MIN_RNR_TIMER));
    }

    public static void minRnrTimer(MemorySegment s, int v) {
        s.set(U8, OFFSET_MIN_RNR_TIMER, (byte) v);
    }

    public static int portNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PORT_NUM));
    }

    public static void portNum(MemorySegment s, int v) {
        s.set(U8, OFFSET_PORT_NUM, (byte) v);
    }

    public static int timeout(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_TIMEOUT));
    }

    public static void timeout(MemorySegment s, int v) {
        s.set(U8, OFFSET_TIMEOUT, (byte) v);
    }

    public static int retryCnt(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RETRY_CNT));
    }

    public static void retryCnt(MemorySegment s, int v) {
        s.set(U8, OFFSET_RETRY_CNT, (byte) v);
    }

    public static int rnrRetry(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_RNR_RETRY));
    }

    public static void rnrRetry(MemorySegment s, int v) {
        s.set(U8, OFFSET_RNR_RETRY, (byte) v);
    }

    public static int altPortNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_ALT_PORT_NUM));
    }

    public static void altPortNum(MemorySegment s, int v) {
        s.set(U8, OFFSET_ALT_PORT_NUM, (byte) v);
    }

    public static int altTimeout(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_ALT_TIMEOUT));
    }

    public static void altTimeout(MemorySegment s, int v) {
        s.set(U8, OFFSET_ALT_TIMEOUT, (byte) v);
    }

    public static int rateLimit(MemorySegment s) {
        return s.get(U32, OFFSET_RATE_LIMIT);
    }

    public static void rateLimit(MemorySegment s, int v) {
        s.set(U32, OFFSET_RATE_LIMIT, v);
    }
}
