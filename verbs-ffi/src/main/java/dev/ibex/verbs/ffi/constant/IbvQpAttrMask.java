package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_modify_qp}/{@code ibv_query_qp} attribute mask bits.
 *
 * <p>Values of {@code enum ibv_qp_attr_mask}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvQpAttrMask {
    public static final int IBV_QP_STATE = 1 << 0;
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    public static final int IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_QKEY = 1 << 6;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_ALT_PATH = 1 << 14;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_PATH_MIG_STATE = 1 << 18;
    public static final int IBV_QP_CAP = 1 << 19;
    public static final int IBV_QP_DEST_QPN = 1 << 20;
    public static final int IBV_QP_RATE_LIMIT = 1 << 25;

    private IbvQpAttrMask() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvQpAttrMask.class, mask);
    }
}
