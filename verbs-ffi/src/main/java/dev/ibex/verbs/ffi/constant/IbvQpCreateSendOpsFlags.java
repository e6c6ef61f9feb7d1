package dev.ibex.verbs.ffi.constant;

/**
 * The {@code send_ops_flags} of {@code struct ibv_qp_init_attr_ex}: the {@code ibv_wr_*} operations a QP made by
 * {@code ibv_create_qp_ex} supports; creation fails when the device cannot do one of them.
 *
 * <p>Values of {@code enum ibv_qp_create_send_ops_flags}, with the C names; the layout test checks every value
 * against the installed headers.
 */
public final class IbvQpCreateSendOpsFlags {
    public static final int IBV_QP_EX_WITH_RDMA_WRITE = 1;
    public static final int IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1;
    public static final int IBV_QP_EX_WITH_SEND = 1 << 2;
    public static final int IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3;
    public static final int IBV_QP_EX_WITH_RDMA_READ = 1 << 4;
    public static final int IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5;
    public static final int IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6;
    public static final int IBV_QP_EX_WITH_LOCAL_INV = 1 << 7;
    public static final int IBV_QP_EX_WITH_BIND_MW = 1 << 8;
    public static final int IBV_QP_EX_WITH_SEND_WITH_INV = 1 << 9;
    public static final int IBV_QP_EX_WITH_TSO = 1 << 10;

    private IbvQpCreateSendOpsFlags() {
    }
}
