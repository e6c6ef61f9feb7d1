package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_wc}: a work completion, as filled by {@code ibv_poll_cq}. Data-path struct: accessors
 * take an element index into the completion array and never allocate.
 */
public final class IbvWc {
    /** {@code struct ibv_wc} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            U32.withName("status"),
            U32.withName("opcode"),
            U32.withName("vendor_err"),
            U32.withName("byte_len"),
            MemoryLayout.unionLayout(
                    BE32.withName("imm_data"),
                    U32.withName("invalidated_rkey")),
            U32.withName("qp_num"),
            U32.withName("src_qp"),
            U32.withName("wc_flags"),
            U16.withName("pkey_index"),
            U16.withName("slid"),
            U8.withName("sl"),
            U8.withName("dlid_path_bits"),
            pad(2))
            .withName("ibv_wc");
    /** {@code sizeof(struct ibv_wc)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_wc, wr_id)}. */
    public static final long OFFSET_WR_ID = offset(LAYOUT, "wr_id");
    /** {@code offsetof(struct ibv_wc, status)}. */
    public static final long OFFSET_STATUS = offset(LAYOUT, "status");
    /** {@code offsetof(struct ibv_wc, opcode)}. */
    public static final long OFFSET_OPCODE = offset(LAYOUT, "opcode");
    /** {@code offsetof(struct ibv_wc, vendor_err)}. */
    public static final long OFFSET_VENDOR_ERR = offset(LAYOUT, "vendor_err");
    /** {@code offsetof(struct ibv_wc, byte_len)}. */
    public static final long OFFSET_BYTE_LEN = offset(LAYOUT, "byte_len");
    /** {@code offsetof(struct ibv_wc, imm_data)}. */
    public static final long OFFSET_IMM_DATA = offset(LAYOUT, "imm_data");
    /** {@code offsetof(struct ibv_wc, invalidated_rkey)}. */
    public static final long OFFSET_INVALIDATED_RKEY = offset(LAYOUT, "invalidated_rkey");
    /** {@code offsetof(struct ibv_wc, qp_num)}. */
    public static final long OFFSET_QP_NUM = offset(LAYOUT, "qp_num");
    /** {@code offsetof(struct ibv_wc, src_qp)}. */
    public static final long OFFSET_SRC_QP = offset(LAYOUT, "src_qp");
    /** {@code offsetof(struct ibv_wc, wc_flags)}. */
    public static final long OFFSET_WC_FLAGS = offset(LAYOUT, "wc_flags");
    /** {@code offsetof(struct ibv_wc, pkey_index)}. */
    public static final long OFFSET_PKEY_INDEX = offset(LAYOUT, "pkey_index");
    /** {@code offsetof(struct ibv_wc, slid)}. */
    public static final long OFFSET_SLID = offset(LAYOUT, "slid");
    /** {@code offsetof(struct ibv_wc, sl)}. */
    public static final long OFFSET_SL = offset(LAYOUT, "sl");
    /** {@code offsetof(struct ibv_wc, dlid_path_bits)}. */
    public static final long OFFSET_DLID_PATH_BITS = offset(LAYOUT, "dlid_path_bits");

    private IbvWc() {
    }

    public static long wrId(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ID);
    }

    public static int status(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_STATUS);
    }

    public static int opcode(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_OPCODE);
    }

    public static int vendorErr(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_VENDOR_ERR);
    }

    public static int byteLen(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_BYTE_LEN);
    }

    /** Immediate data as a host value (valid when {@code wc_flags & IBV_WC_WITH_IMM}). */
    public static int immData(MemorySegment s, long i) {
        return s.get(BE32, i * SIZE + OFFSET_IMM_DATA);
    }

    public static int invalidatedRkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_INVALIDATED_RKEY);
    }

    public static int qpNum(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_QP_NUM);
    }

    public static int srcQp(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_SRC_QP);
    }

    public static int wcFlags(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_WC_FLAGS);
    }

    public static int pkeyIndex(MemorySegment s, long i) {
        return Short.toUnsignedInt(s.get(U16, i * SIZE + OFFSET_PKEY_INDEX));
    }

    public static int slid(MemorySegment s, long i) {
        return Short.toUnsignedInt(s.get(U16, i * SIZE + OFFSET_SLID));
    }

    public static int sl(MemorySegment s, long i) {
        return Byte.toUnsignedInt(s.get(U8, i * SIZE + OFFSET_SL));
    }

    public static int dlidPathBits(MemorySegment s, long i) {
        return Byte.toUnsignedInt(s.get(U8, i * SIZE + OFFSET_DLID_PATH_BITS));
    }
}
