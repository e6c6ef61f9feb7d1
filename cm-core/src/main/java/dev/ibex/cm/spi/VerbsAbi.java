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

    public static final int SGE_SIZE = 16;
    public static final int SGE_ADDR = 0;
    public static final int SGE_LENGTH = 8;
    public static final int SGE_LKEY = 12;

    public static final int RECV_WR_SIZE = 32;
    public static final int RECV_WR_WR_ID = 0;
    public static final int RECV_WR_NEXT = 8;
    public static final int RECV_WR_SG_LIST = 16;
    public static final int RECV_WR_NUM_SGE = 24;

    public static final int SEND_WR_SIZE = 128;
    public static final int SEND_WR_WR_ID = 0;
    public static final int SEND_WR_NEXT = 8;
    public static final int SEND_WR_SG_LIST = 16;
    public static final int SEND_WR_NUM_SGE = 24;
    public static final int SEND_WR_OPCODE = 28;
    public static final int SEND_WR_SEND_FLAGS = 32;
    /** {@code imm_data} (big-endian) / {@code invalidate_rkey} (host order) union. */
    public static final int SEND_WR_IMM_DATA = 36;
    public static final int SEND_WR_RDMA_REMOTE_ADDR = 40;
    public static final int SEND_WR_RDMA_RKEY = 48;
    public static final int SEND_WR_ATOMIC_REMOTE_ADDR = 40;
    public static final int SEND_WR_ATOMIC_COMPARE_ADD = 48;
    public static final int SEND_WR_ATOMIC_SWAP = 56;
    public static final int SEND_WR_ATOMIC_RKEY = 64;
    public static final int SEND_WR_UD_AH = 40;
    public static final int SEND_WR_UD_REMOTE_QPN = 48;
    public static final int SEND_WR_UD_REMOTE_QKEY = 52;
    /** {@code bind_mw.mw} ({@code struct ibv_mw *}). */
    public static final int SEND_WR_BIND_MW_MW = 80;
    /** {@code bind_mw.rkey}: the window's new rkey. */
    public static final int SEND_WR_BIND_MW_RKEY = 88;
    /** {@code bind_mw.bind_info.mr} ({@code struct ibv_mr *}). */
    public static final int SEND_WR_BIND_MW_MR = 96;
    public static final int SEND_WR_BIND_MW_ADDR = 104;
    public static final int SEND_WR_BIND_MW_LENGTH = 112;
    /** {@code bind_mw.bind_info.mw_access_flags}. */
    public static final int SEND_WR_BIND_MW_ACCESS = 120;

    public static final int WC_SIZE = 48;
    public static final int WC_WR_ID = 0;
    public static final int WC_STATUS = 8;
    public static final int WC_OPCODE = 12;
    public static final int WC_VENDOR_ERR = 16;
    public static final int WC_BYTE_LEN = 20;
    /** {@code imm_data} (big-endian) / {@code invalidated_rkey} (host order) union. */
    public static final int WC_IMM_DATA = 24;
    public static final int WC_QP_NUM = 28;
    public static final int WC_SRC_QP = 32;
    public static final int WC_WC_FLAGS = 36;
    public static final int WC_PKEY_INDEX = 40;
    public static final int WC_SLID = 42;
    public static final int WC_SL = 44;
    public static final int WC_DLID_PATH_BITS = 45;

    /** Bytes of Global Route Header at the start of every UD receive buffer. */
    public static final int GRH_SIZE = 40;
}
