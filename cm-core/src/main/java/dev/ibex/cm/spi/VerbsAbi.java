package dev.ibex.cm.spi;

/**
 * Byte offsets of the verbs data-path structs ({@code struct ibv_wc}, {@code ibv_send_wr}, {@code ibv_recv_wr},
 * {@code ibv_sge}) on Linux x86_64 / aarch64 (LP64), as in rdma-core's {@code verbs.h}. The batches of
 * {@link CompletionBatch}, {@link SendBatch} and {@link RecvBatch} use exactly this layout so the rdma-core
 * provider can hand them to libibverbs without copying; the soft provider reads and writes the same bytes.
 * verbs-ffi's layout test checks these numbers against the installed headers with gcc.
 */
public final class VerbsAbi {
    private VerbsAbi() {}

    /** Size of {@code struct ibv_sge} in bytes. */
    public static final int SGE_SIZE = 16;
    /** Offset of {@code struct ibv_sge.addr}. */
    public static final int SGE_ADDR = 0;
    /** Offset of {@code struct ibv_sge.length}. */
    public static final int SGE_LENGTH = 8;
    /** Offset of {@code struct ibv_sge.lkey}. */
    public static final int SGE_LKEY = 12;

    /** Size of {@code struct ibv_recv_wr} in bytes. */
    public static final int RECV_WR_SIZE = 32;
    /** Offset of {@code struct ibv_recv_wr.wr_id}. */
    public static final int RECV_WR_WR_ID = 0;
    /** Offset of {@code struct ibv_recv_wr.next}. */
    public static final int RECV_WR_NEXT = 8;
    /** Offset of {@code struct ibv_recv_wr.sg_list}. */
    public static final int RECV_WR_SG_LIST = 16;
    /** Offset of {@code struct ibv_recv_wr.num_sge}. */
    public static final int RECV_WR_NUM_SGE = 24;

    /** Size of {@code struct ibv_send_wr} in bytes. */
    public static final int SEND_WR_SIZE = 128;
    /** Offset of {@code struct ibv_send_wr.wr_id}. */
    public static final int SEND_WR_WR_ID = 0;
    /** Offset of {@code struct ibv_send_wr.next}. */
    public static final int SEND_WR_NEXT = 8;
    /** Offset of {@code struct ibv_send_wr.sg_list}. */
    public static final int SEND_WR_SG_LIST = 16;
    /** Offset of {@code struct ibv_send_wr.num_sge}. */
    public static final int SEND_WR_NUM_SGE = 24;
    /** Offset of {@code struct ibv_send_wr.opcode}. */
    public static final int SEND_WR_OPCODE = 28;
    /** Offset of {@code struct ibv_send_wr.send_flags}. */
    public static final int SEND_WR_SEND_FLAGS = 32;
    /** {@code imm_data} (big-endian) / {@code invalidate_rkey} (host order) union. */
    public static final int SEND_WR_IMM_DATA = 36;
    /** Offset of {@code struct ibv_send_wr.wr.rdma.remote_addr}. */
    public static final int SEND_WR_RDMA_REMOTE_ADDR = 40;
    /** Offset of {@code struct ibv_send_wr.wr.rdma.rkey}. */
    public static final int SEND_WR_RDMA_RKEY = 48;
    /** Offset of {@code struct ibv_send_wr.wr.atomic.remote_addr}. */
    public static final int SEND_WR_ATOMIC_REMOTE_ADDR = 40;
    /** Offset of {@code struct ibv_send_wr.wr.atomic.compare_add}. */
    public static final int SEND_WR_ATOMIC_COMPARE_ADD = 48;
    /** Offset of {@code struct ibv_send_wr.wr.atomic.swap}. */
    public static final int SEND_WR_ATOMIC_SWAP = 56;
    /** Offset of {@code struct ibv_send_wr.wr.atomic.rkey}. */
    public static final int SEND_WR_ATOMIC_RKEY = 64;
    /** Offset of {@code struct ibv_send_wr.wr.ud.ah}. */
    public static final int SEND_WR_UD_AH = 40;
    /** Offset of {@code struct ibv_send_wr.wr.ud.remote_qpn}. */
    public static final int SEND_WR_UD_REMOTE_QPN = 48;
    /** Offset of {@code struct ibv_send_wr.wr.ud.remote_qkey}. */
    public static final int SEND_WR_UD_REMOTE_QKEY = 52;
    /** {@code bind_mw.mw} ({@code struct ibv_mw *}). */
    public static final int SEND_WR_BIND_MW_MW = 80;
    /** {@code bind_mw.rkey}: the window's new rkey. */
    public static final int SEND_WR_BIND_MW_RKEY = 88;
    /** {@code bind_mw.bind_info.mr} ({@code struct ibv_mr *}). */
    public static final int SEND_WR_BIND_MW_MR = 96;
    /** Offset of {@code struct ibv_send_wr.bind_mw.bind_info.addr}. */
    public static final int SEND_WR_BIND_MW_ADDR = 104;
    /** Offset of {@code struct ibv_send_wr.bind_mw.bind_info.length}. */
    public static final int SEND_WR_BIND_MW_LENGTH = 112;
    /** {@code bind_mw.bind_info.mw_access_flags}. */
    public static final int SEND_WR_BIND_MW_ACCESS = 120;

    /** Size of {@code struct ibv_wc} in bytes. */
    public static final int WC_SIZE = 48;
    /** Offset of {@code struct ibv_wc.wr_id}. */
    public static final int WC_WR_ID = 0;
    /** Offset of {@code struct ibv_wc.status}. */
    public static final int WC_STATUS = 8;
    /** Offset of {@code struct ibv_wc.opcode}. */
    public static final int WC_OPCODE = 12;
    /** Offset of {@code struct ibv_wc.vendor_err}. */
    public static final int WC_VENDOR_ERR = 16;
    /** Offset of {@code struct ibv_wc.byte_len}. */
    public static final int WC_BYTE_LEN = 20;
    /** {@code imm_data} (big-endian) / {@code invalidated_rkey} (host order) union. */
    public static final int WC_IMM_DATA = 24;
    /** Offset of {@code struct ibv_wc.qp_num}. */
    public static final int WC_QP_NUM = 28;
    /** Offset of {@code struct ibv_wc.src_qp}. */
    public static final int WC_SRC_QP = 32;
    /** Offset of {@code struct ibv_wc.wc_flags}. */
    public static final int WC_WC_FLAGS = 36;
    /** Offset of {@code struct ibv_wc.pkey_index}. */
    public static final int WC_PKEY_INDEX = 40;
    /** Offset of {@code struct ibv_wc.slid}. */
    public static final int WC_SLID = 42;
    /** Offset of {@code struct ibv_wc.sl}. */
    public static final int WC_SL = 44;
    /** Offset of {@code struct ibv_wc.dlid_path_bits}. */
    public static final int WC_DLID_PATH_BITS = 45;

    /** Bytes of Global Route Header at the start of every UD receive buffer. */
    public static final int GRH_SIZE = 40;

    /** Size of {@code struct ibv_ops_wr} in bytes (a tag-matching list operation, {@link SrqOpsBatch}). */
    public static final int OPS_WR_SIZE = 72;
    /** Offset of {@code struct ibv_ops_wr.wr_id}. */
    public static final int OPS_WR_WR_ID = 0;
    /** Offset of {@code struct ibv_ops_wr.next}. */
    public static final int OPS_WR_NEXT = 8;
    /** Offset of {@code struct ibv_ops_wr.opcode}. */
    public static final int OPS_WR_OPCODE = 16;
    /** Offset of {@code struct ibv_ops_wr.flags}. */
    public static final int OPS_WR_FLAGS = 20;
    /** Offset of {@code struct ibv_ops_wr.tm.unexpected_cnt}. */
    public static final int OPS_WR_TM_UNEXPECTED_CNT = 24;
    /** Offset of {@code struct ibv_ops_wr.tm.handle}. */
    public static final int OPS_WR_TM_HANDLE = 28;
    /** Offset of {@code struct ibv_ops_wr.tm.add.recv_wr_id}. */
    public static final int OPS_WR_TM_ADD_RECV_WR_ID = 32;
    /** Offset of {@code struct ibv_ops_wr.tm.add.sg_list}. */
    public static final int OPS_WR_TM_ADD_SG_LIST = 40;
    /** Offset of {@code struct ibv_ops_wr.tm.add.num_sge}. */
    public static final int OPS_WR_TM_ADD_NUM_SGE = 48;
    /** Offset of {@code struct ibv_ops_wr.tm.add.tag}. */
    public static final int OPS_WR_TM_ADD_TAG = 56;
    /** Offset of {@code struct ibv_ops_wr.tm.add.mask}. */
    public static final int OPS_WR_TM_ADD_MASK = 64;
}
