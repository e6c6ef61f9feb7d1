package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_send_wr}: a send work request (128 bytes; unions at 36, 40, 72 and 80, hole at 76).
 * Data-path struct: accessors take an element index into an array of WRs and pointers are raw addresses
 * ({@code long}), so writing and chaining WRs never allocates.
 */
public final class IbvSendWr {
    /** {@code struct ibv_send_wr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("wr_id"),
            PTR.withName("next"),
            PTR.withName("sg_list"),
            U32.withName("num_sge"),
            U32.withName("opcode"),
            U32.withName("send_flags"),
            MemoryLayout.unionLayout(
                    BE32.withName("imm_data"),
                    U32.withName("invalidate_rkey")),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            U64.withName("remote_addr"),
                            U32.withName("rkey"),
                            pad(4)).withName("rdma"),
                    MemoryLayout.structLayout(
                            U64.withName("remote_addr"),
                            U64.withName("compare_add"),
                            U64.withName("swap"),
                            U32.withName("rkey"),
                            pad(4)).withName("atomic"),
                    MemoryLayout.structLayout(
                            PTR.withName("ah"),
                            U32.withName("remote_qpn"),
                            U32.withName("remote_qkey")).withName("ud")).withName("wr"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            U32.withName("remote_srqn")).withName("xrc")).withName("qp_type"),
            pad(4),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            PTR.withName("mw"),
                            U32.withName("rkey"),
                            pad(4),
                            IbvMwBindInfo.LAYOUT.withName("bind_info")).withName("bind_mw"),
                    MemoryLayout.structLayout(
                            PTR.withName("hdr"),
                            U16.withName("hdr_sz"),
                            U16.withName("mss"),
                            pad(4)).withName("tso")))
            .withName("ibv_send_wr");
    /** {@code sizeof(struct ibv_send_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_send_wr, wr_id)}. */
    public static final long OFFSET_WR_ID = offset(LAYOUT, "wr_id");
    /** {@code offsetof(struct ibv_send_wr, next)}. */
    public static final long OFFSET_NEXT = offset(LAYOUT, "next");
    /** {@code offsetof(struct ibv_send_wr, sg_list)}. */
    public static final long OFFSET_SG_LIST = offset(LAYOUT, "sg_list");
    /** {@code offsetof(struct ibv_send_wr, num_sge)}. */
    public static final long OFFSET_NUM_SGE = offset(LAYOUT, "num_sge");
    /** {@code offsetof(struct ibv_send_wr, opcode)}. */
    public static final long OFFSET_OPCODE = offset(LAYOUT, "opcode");
    /** {@code offsetof(struct ibv_send_wr, send_flags)}. */
    public static final long OFFSET_SEND_FLAGS = offset(LAYOUT, "send_flags");
    /** {@code offsetof(struct ibv_send_wr, imm_data)}. */
    public static final long OFFSET_IMM_DATA = offset(LAYOUT, "imm_data");
    /** {@code offsetof(struct ibv_send_wr, invalidate_rkey)}. */
    public static final long OFFSET_INVALIDATE_RKEY = offset(LAYOUT, "invalidate_rkey");
    /** {@code offsetof(struct ibv_send_wr, wr.rdma.remote_addr)}. */
    public static final long OFFSET_WR_RDMA_REMOTE_ADDR = offset(LAYOUT, "wr.rdma.remote_addr");
    /** {@code offsetof(struct ibv_send_wr, wr.rdma.rkey)}. */
    public static final long OFFSET_WR_RDMA_RKEY = offset(LAYOUT, "wr.rdma.rkey");
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.remote_addr)}. */
    public static final long OFFSET_WR_ATOMIC_REMOTE_ADDR = offset(LAYOUT, "wr.atomic.remote_addr");
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.compare_add)}. */
    public static final long OFFSET_WR_ATOMIC_COMPARE_ADD = offset(LAYOUT, "wr.atomic.compare_add");
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.swap)}. */
    public static final long OFFSET_WR_ATOMIC_SWAP = offset(LAYOUT, "wr.atomic.swap");
    /** {@code offsetof(struct ibv_send_wr, wr.atomic.rkey)}. */
    public static final long OFFSET_WR_ATOMIC_RKEY = offset(LAYOUT, "wr.atomic.rkey");
    /** {@code offsetof(struct ibv_send_wr, wr.ud.ah)}. */
    public static final long OFFSET_WR_UD_AH = offset(LAYOUT, "wr.ud.ah");
    /** {@code offsetof(struct ibv_send_wr, wr.ud.remote_qpn)}. */
    public static final long OFFSET_WR_UD_REMOTE_QPN = offset(LAYOUT, "wr.ud.remote_qpn");
    /** {@code offsetof(struct ibv_send_wr, wr.ud.remote_qkey)}. */
    public static final long OFFSET_WR_UD_REMOTE_QKEY = offset(LAYOUT, "wr.ud.remote_qkey");
    /** {@code offsetof(struct ibv_send_wr, qp_type.xrc.remote_srqn)}. */
    public static final long OFFSET_QP_TYPE_XRC_REMOTE_SRQN = offset(LAYOUT, "qp_type.xrc.remote_srqn");
    /** {@code offsetof(struct ibv_send_wr, bind_mw.mw)}. */
    public static final long OFFSET_BIND_MW_MW = offset(LAYOUT, "bind_mw.mw");
    /** {@code offsetof(struct ibv_send_wr, bind_mw.rkey)}. */
    public static final long OFFSET_BIND_MW_RKEY = offset(LAYOUT, "bind_mw.rkey");
    /** {@code offsetof(struct ibv_send_wr, bind_mw.bind_info)}. */
    public static final long OFFSET_BIND_MW_BIND_INFO = offset(LAYOUT, "bind_mw.bind_info");
    /** {@code offsetof(struct ibv_send_wr, tso.hdr)}. */
    public static final long OFFSET_TSO_HDR = offset(LAYOUT, "tso.hdr");
    /** {@code offsetof(struct ibv_send_wr, tso.hdr_sz)}. */
    public static final long OFFSET_TSO_HDR_SZ = offset(LAYOUT, "tso.hdr_sz");
    /** {@code offsetof(struct ibv_send_wr, tso.mss)}. */
    public static final long OFFSET_TSO_MSS = offset(LAYOUT, "tso.mss");

    private IbvSendWr() {
    }

    public static long wrId(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ID);
    }

    public static void wrId(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_ID, v);
    }

    /** The next WR of the chain (address, 0 for the last). */
    public static long next(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_NEXT);
    }

    public static void next(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_NEXT, v);
    }

    public static long sgList(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_SG_LIST);
    }

    public static void sgList(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_SG_LIST, v);
    }

    public static int numSge(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_NUM_SGE);
    }

    public static void numSge(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_NUM_SGE, v);
    }

    public static int opcode(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_OPCODE);
    }

    public static void opcode(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_OPCODE, v);
    }

    public static int sendFlags(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_SEND_FLAGS);
    }

    public static void sendFlags(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_SEND_FLAGS, v);
    }

    /** Immediate data as a host value (stored in network byte order, as verbs requires). */
    public static int immData(MemorySegment s, long i) {
        return s.get(BE32, i * SIZE + OFFSET_IMM_DATA);
    }

    public static void immData(MemorySegment s, long i, int v) {
        s.set(BE32, i * SIZE + OFFSET_IMM_DATA, v);
    }

    public static int invalidateRkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_INVALIDATE_RKEY);
    }

    public static void invalidateRkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_INVALIDATE_RKEY, v);
    }

    public static long rdmaRemoteAddr(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_RDMA_REMOTE_ADDR);
    }

    public static void rdmaRemoteAddr(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_RDMA_REMOTE_ADDR, v);
    }

    public static int rdmaRkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_WR_RDMA_RKEY);
    }

    public static void rdmaRkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_WR_RDMA_RKEY, v);
    }

    public static long atomicRemoteAddr(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ATOMIC_REMOTE_ADDR);
    }

    public static void atomicRemoteAddr(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_ATOMIC_REMOTE_ADDR, v);
    }

    public static long atomicCompareAdd(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ATOMIC_COMPARE_ADD);
    }

    public static void atomicCompareAdd(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_ATOMIC_COMPARE_ADD, v);
    }

    public static long atomicSwap(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_ATOMIC_SWAP);
    }

    public static void atomicSwap(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_ATOMIC_SWAP, v);
    }

    public static int atomicRkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_WR_ATOMIC_RKEY);
    }

    public static void atomicRkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_WR_ATOMIC_RKEY, v);
    }

    public static long udAh(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_WR_UD_AH);
    }

    public static void udAh(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_WR_UD_AH, v);
    }

    public static int udRemoteQpn(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_WR_UD_REMOTE_QPN);
    }

    public static void udRemoteQpn(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_WR_UD_REMOTE_QPN, v);
    }

    public static int udRemoteQkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_WR_UD_REMOTE_QKEY);
    }

    public static void udRemoteQkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_WR_UD_REMOTE_QKEY, v);
    }

    public static int xrcRemoteSrqn(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_QP_TYPE_XRC_REMOTE_SRQN);
    }

    public static void xrcRemoteSrqn(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_QP_TYPE_XRC_REMOTE_SRQN, v);
    }

    public static long bindMwMw(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_BIND_MW_MW);
    }

    public static void bindMwMw(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_BIND_MW_MW, v);
    }

    public static int bindMwRkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_BIND_MW_RKEY);
    }

    public static void bindMwRkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_BIND_MW_RKEY, v);
    }

    public static MemorySegment bindMwBindInfo(MemorySegment s, long i) {
        return s.asSlice(i * SIZE + OFFSET_BIND_MW_BIND_INFO, IbvMwBindInfo.SIZE);
    }

    public static long tsoHdr(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_TSO_HDR);
    }

    public static void tsoHdr(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_TSO_HDR, v);
    }

    public static int tsoHdrSz(MemorySegment s, long i) {
        return Short.toUnsignedInt(s.get(U16, i * SIZE + OFFSET_TSO_HDR_SZ));
    }

    public static void tsoHdrSz(MemorySegment s, long i, int v) {
        s.set(U16, i * SIZE + OFFSET_TSO_HDR_SZ, (short) v);
    }

    public static int tsoMss(MemorySegment s, long i) {
        return Short.toUnsignedInt(s.get(U16, i * SIZE + OFFSET_TSO_MSS));
    }

    public static void tsoMss(MemorySegment s, long i, int v) {
        s.set(U16, i * SIZE + OFFSET_TSO_MSS, (short) v);
    }

    /** The address of element {@code i} (for {@code next} links and {@code bad_wr} comparisons). */
    public static long address(MemorySegment s, long i) {
        return s.address() + i * SIZE;
    }

    /**
     * Fills the fields every send WR needs; {@code next} is 0 (end of chain) unless set afterwards.
     * Opcode-specific fields ({@code rdma*}, {@code atomic*}, {@code ud*}, {@code immData}) are set with
     * their own accessors.
     */
    public static void set(MemorySegment s, long i, long wrId, int opcode, int sendFlags, long sgList, int numSge) {
        long base = i * SIZE;
        s.set(U64, base + OFFSET_WR_ID, wrId);
        s.set(U64, base + OFFSET_NEXT, 0L);
        s.set(U64, base + OFFSET_SG_LIST, sgList);
        s.set(U32, base + OFFSET_NUM_SGE, numSge);
        s.set(U32, base + OFFSET_OPCODE, opcode);
        s.set(U32, base + OFFSET_SEND_FLAGS, sendFlags);
    }
}
