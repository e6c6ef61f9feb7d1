package dev.ibex.verbs.ffi.constant;

/**
 * The {@code comp_mask} bits of {@code struct ibv_qp_init_attr_ex}: which of its extended fields are set.
 *
 * <p>Values of {@code enum ibv_qp_init_attr_mask}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvQpInitAttrMask {
    public static final int IBV_QP_INIT_ATTR_PD = 1;
    public static final int IBV_QP_INIT_ATTR_XRCD = 1 << 1;
    public static final int IBV_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2;
    public static final int IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 3;
    public static final int IBV_QP_INIT_ATTR_IND_TABLE = 1 << 4;
    public static final int IBV_QP_INIT_ATTR_RX_HASH = 1 << 5;
    public static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    private IbvQpInitAttrMask() {
    }
}
