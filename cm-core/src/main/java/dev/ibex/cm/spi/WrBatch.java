package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.VerbsAbi.SGE_ADDR;
import static dev.ibex.cm.spi.VerbsAbi.SGE_LENGTH;
import static dev.ibex.cm.spi.VerbsAbi.SGE_LKEY;
import static dev.ibex.cm.spi.VerbsAbi.SGE_SIZE;

import dev.ibex.cm.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The extended work-request API of {@code ibv_qp_ex} ({@code ibv_wr_start} … {@code ibv_wr_complete} /
 * {@code ibv_wr_abort}) for one QP, over a reused {@link SendBatch}: {@link QueuePair#startWr()} opens the batch,
 * each builder ({@link #send()}, {@link #rdmaWrite}, {@link #atomicCmpSwp} …) starts a WR with the current
 * {@link #wrId(long)} and {@link #flags(int)}, its setters ({@link #setSge}, {@link #setInlineData},
 * {@link #setUdAddr} …) attach its data and address, {@link #complete()} posts everything since the start or
 * nothing, and {@link #abort()} discards it. Confined to the QP's posting thread, like {@link QueuePair#postSend};
 * allocates nothing per WR.
 *
 * <p>As in the man page, builders and setters report no errors: the first misuse (a WR without its data setter, a
 * UD send without {@link #setUdAddr}, more gather entries than the QP's {@code max_send_sge}, inline data on a
 * READ or past {@code max_inline_data}, more WRs than {@code max_send_wr}) is remembered and {@link #complete()}
 * throws {@link PostException} with errno EINVAL or ENOMEM and posts nothing. Calling any of them with no batch open
 * is a programming error: {@link IllegalStateException}.
 *
 * <p>Inline data is read when {@link #complete()} posts, not when {@link #setInlineData} is called (the verb copies
 * at once): keep the buffer unchanged until {@code complete()} returns.
 */
public final class WrBatch {
    private static final String VERB = "ibv_wr_complete";

    private final QueuePair qp;
    private final QpType type;
    private final int maxInline;
    private final SendBatch batch;

    private boolean open;
    private int count;
    /** Index of the WR the setters apply to, or -1 when there is none (before a builder, or past capacity). */
    private int current = -1;
    private boolean needData;
    private boolean needAddress;
    private long wrId;
    private int flags;
    private int errno;
    private String error;
    private int errorIndex;

    private WrBatch(QueuePair qp, SendBatch batch) {
        this.qp = qp;
        this.type = qp.type();
        this.maxInline = qp.cap().maxInlineData();
        this.batch = batch;
    }

    /**
     * The batch builder of {@code qp}, with room for its {@code max_send_wr} WRs of {@code max_send_sge} entries. A
     * provider makes one per QP, on first use, and returns it from {@link QueuePair#wrBatch()}.
     *
     * @param qp the QP the batch posts to
     * @param arena where the batch's native memory comes from; it lives as long as the arena
     * @return the builder, closed
     */
    public static WrBatch allocate(QueuePair qp, Arena arena) {
        QpCap cap = qp.cap();
        return new WrBatch(qp, SendBatch.allocate(arena, Math.max(1, cap.maxSendWr()), Math.max(1, cap.maxSendSge())));
    }

    /**
     * {@code ibv_wr_start}: opens the batch. The current WR id and flags start at 0.
     *
     * @return this builder
     * @throws IllegalStateException when the batch is already open (one batch at a time per QP)
     */
    public WrBatch start() {
        if (open) {
            throw new IllegalStateException("a WR batch is already open on QP " + qp.qpNum()
                    + ": complete() or abort() it before starting another");
        }
        open = true;
        count = 0;
        current = -1;
        needData = false;
        needAddress = false;
        wrId = 0;
        flags = 0;
        error = null;
        return this;
    }

    /** {@return whether a batch is open (started and not yet completed or aborted)} */
    public boolean isOpen() {
        return open;
    }

    /** {@return how many WRs the open batch holds so far} */
    public int size() {
        return count;
    }

    /**
     * Sets {@code qpx->wr_id}: the id the following builders give their WRs.
     *
     * @param wrId the work request id their completions report
     * @return this builder
     */
    public WrBatch wrId(long wrId) {
        requireOpen();
        this.wrId = wrId;
        return this;
    }

    /**
     * Sets {@code qpx->wr_flags}: the {@link SendFlags} the following builders give their WRs.
     *
     * @param flags {@link SendFlags} bits (signaled, fence, solicited)
     * @return this builder
     */
    public WrBatch flags(int flags) {
        requireOpen();
        this.flags = flags;
        return this;
    }

    /**
     * {@code ibv_wr_send}: a SEND (RC, UC, UD).
     *
     * @return this builder
     */
    public WrBatch send() {
        begin(WrOpcode.SEND);
        return this;
    }

    /**
     * {@code ibv_wr_send_imm}: a SEND with immediate data (RC, UC, UD).
     *
     * @param imm the immediate data, in host order
     * @return this builder
     */
    public WrBatch sendImm(int imm) {
        if (begin(WrOpcode.SEND_WITH_IMM)) {
            batch.immData(current, imm);
        }
        return this;
    }

    /**
     * {@code ibv_wr_send_inv}: a SEND that invalidates {@code invalidateRkey} at the peer (RC, UC).
     *
     * @param invalidateRkey the peer's rkey to invalidate
     * @return this builder
     */
    public WrBatch sendInv(int invalidateRkey) {
        if (begin(WrOpcode.SEND_WITH_INV)) {
            batch.invalidateRkey(current, invalidateRkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_rdma_write} (RC, UC).
     *
     * @param rkey the peer's remote key
     * @param remoteAddr the peer's virtual address
     * @return this builder
     */
    public WrBatch rdmaWrite(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_WRITE)) {
            batch.rdma(current, remoteAddr, rkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_rdma_write_imm} (RC, UC): the peer gets a receive completion with {@code imm}.
     *
     * @param rkey the peer's remote key
     * @param remoteAddr the peer's virtual address
     * @param imm the immediate data, in host order
     * @return this builder
     */
    public WrBatch rdmaWriteImm(int rkey, long remoteAddr, int imm) {
        if (begin(WrOpcode.RDMA_WRITE_WITH_IMM)) {
            batch.rdma(current, remoteAddr, rkey).immData(current, imm);
        }
        return this;
    }

    /**
     * {@code ibv_wr_rdma_read} (RC).
     *
     * @param rkey the peer's remote key
     * @param remoteAddr the peer's virtual address
     * @return this builder
     */
    public WrBatch rdmaRead(int rkey, long remoteAddr) {
        if (begin(WrOpcode.RDMA_READ)) {
            batch.rdma(current, remoteAddr, rkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_atomic_cmp_swp} (RC): its data setter names the 8 bytes that receive the original value.
     *
     * @param rkey the peer's remote key
     * @param remoteAddr the peer's 8-byte aligned virtual address
     * @param compare the value compared
     * @param swap the value stored when the comparison holds
     * @return this builder
     */
    public WrBatch atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        if (begin(WrOpcode.ATOMIC_CMP_AND_SWP)) {
            batch.atomic(current, remoteAddr, compare, swap, rkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_atomic_fetch_add} (RC): its data setter names the 8 bytes that receive the original value.
     *
     * @param rkey the peer's remote key
     * @param remoteAddr the peer's 8-byte aligned virtual address
     * @param add the value added
     * @return this builder
     */
    public WrBatch atomicFetchAdd(int rkey, long remoteAddr, long add) {
        if (begin(WrOpcode.ATOMIC_FETCH_AND_ADD)) {
            batch.atomic(current, remoteAddr, add, 0, rkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_set_sge}: the last WR's data is one gather entry.
     *
     * @param lkey the local key of the region the entry lies in
     * @param addr the entry's start address
     * @param length the entry's length in bytes
     * @return this builder
     */
    public WrBatch setSge(int lkey, long addr, int length) {
        if (data()) {
            batch.single(current, addr, length, lkey);
        }
        return this;
    }

    /**
     * {@code ibv_wr_set_sge_list}: the last WR's data is {@code numSge} gather entries in {@code struct ibv_sge}
     * layout ({@link VerbsAbi#SGE_SIZE} bytes each), copied now.
     *
     * @param sgList the entries
     * @param numSge how many of them to use
     * @return this builder
     */
    public WrBatch setSgeList(MemorySegment sgList, int numSge) {
        if (data() && entries(numSge, "gather entries")) {
            for (int j = 0; j < numSge; j++) {
                long s = (long) j * SGE_SIZE;
                batch.sge(current, j, sgList.get(ValueLayout.JAVA_LONG, s + SGE_ADDR),
                        sgList.get(ValueLayout.JAVA_INT, s + SGE_LENGTH), sgList.get(ValueLayout.JAVA_INT, s + SGE_LKEY));
            }
            batch.numSge(current, numSge);
        }
        return this;
    }

    /**
     * {@code ibv_wr_set_inline_data}: the last WR (a SEND or RDMA WRITE) carries {@code length} bytes at
     * {@code addr} inline, at most the QP's {@code max_inline_data}.
     *
     * @param addr the data's address
     * @param length its length in bytes
     * @return this builder
     */
    public WrBatch setInlineData(long addr, int length) {
        if (data() && inline(length)) {
            batch.single(current, addr, length, 0).flags(current, batch.flags(current) | SendFlags.INLINE);
        }
        return this;
    }

    /**
     * {@code ibv_wr_set_inline_data_list}: the last WR (a SEND or RDMA WRITE) carries {@code numBuf} buffers
     * inline, given as {@code struct ibv_data_buf} ({@code void *addr; size_t length}, 16 bytes each).
     *
     * @param bufList the buffers
     * @param numBuf how many of them to use
     * @return this builder
     */
    public WrBatch setInlineDataList(MemorySegment bufList, int numBuf) {
        if (!data() || !entries(numBuf, "inline buffers")) {
            return this;
        }
        long total = 0;
        for (int j = 0; j < numBuf; j++) {
            total += bufList.get(ValueLayout.JAVA_LONG, j * 16L + 8);
        }
        if (inline(total)) {
            for (int j = 0; j < numBuf; j++) {
                batch.sge(current, j, bufList.get(ValueLayout.JAVA_LONG, j * 16L),
                        (int) bufList.get(ValueLayout.JAVA_LONG, j * 16L + 8), 0);
            }
            batch.numSge(current, numBuf).flags(current, batch.flags(current) | SendFlags.INLINE);
        }
        return this;
    }

    /**
     * {@code ibv_wr_set_ud_addr}: the last WR's destination, mandatory on a UD QP.
     *
     * @param ah the address handle of the path to the destination
     * @param remoteQpn the destination QP number
     * @param remoteQkey the destination's Q_Key
     * @return this builder
     */
    public WrBatch setUdAddr(AddressHandle ah, int remoteQpn, int remoteQkey) {
        if (!setter()) {
            return this;
        }
        if (type != QpType.UD) {
            fail(Errno.EINVAL, current, "set_ud_addr on a " + type + " QP");
        } else {
            batch.ud(current, ah, remoteQpn, remoteQkey);
            needAddress = false;
        }
        return this;
    }

    /**
     * {@code ibv_wr_complete}: posts every WR built since {@link #start()} and closes the batch — all of them or,
     * when any is invalid, none. The QP stays as it was after a refusal.
     *
     * @throws PostException EINVAL or ENOMEM naming the first invalid WR, with {@link PostException#failedIndex()}
     *     0: nothing was posted; or what the provider's post reports (see {@link QueuePair#postSendAll})
     * @throws IllegalStateException when no batch is open
     */
    public void complete() {
        requireOpen();
        open = false;
        finish();
        if (error != null) {
            throw new PostException(VERB, errno, 0, "the batch was discarded: WR " + errorIndex + " " + error);
        }
        if (count > 0) {
            qp.postSendAll(batch, count);
        }
    }

    /**
     * {@code ibv_wr_abort}: discards every WR built since {@link #start()} and closes the batch; nothing is posted.
     *
     * @throws IllegalStateException when no batch is open
     */
    public void abort() {
        requireOpen();
        open = false;
        count = 0;
        current = -1;
    }

    private void requireOpen() {
        if (!open) {
            throw new IllegalStateException("no WR batch is open on QP " + qp.qpNum() + ": call startWr() first");
        }
    }

    /** Starts WR {@code count} with {@code opcode}; false when setters must skip it (no room, or refused). */
    private boolean begin(int opcode) {
        requireOpen();
        finish();
        current = -1;
        if (count == batch.capacity()) {
            fail(Errno.ENOMEM, count, "exceeds the send queue's " + batch.capacity() + " WRs");
            return false;
        }
        int i = count++;
        if (!allowed(opcode)) {
            fail(Errno.EINVAL, i, WrOpcode.name(opcode) + " is not an operation of a " + type + " QP");
            return false;
        }
        batch.clear(i).wrId(i, wrId).opcode(i, opcode).flags(i, flags);
        current = i;
        needData = true;
        needAddress = type == QpType.UD;
        return true;
    }

    private boolean allowed(int op) {
        return switch (type) {
            case UD -> op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM;
            case UC -> op != WrOpcode.RDMA_READ && op != WrOpcode.ATOMIC_CMP_AND_SWP
                    && op != WrOpcode.ATOMIC_FETCH_AND_ADD;
            default -> true;
        };
    }

    /** The mandatory setters of the WR being closed were called. */
    private void finish() {
        if (current < 0) {
            return;
        }
        if (needData) {
            fail(Errno.EINVAL, current, "has no data setter (set_sge, set_sge_list, set_inline_data[_list])");
        } else if (needAddress) {
            fail(Errno.EINVAL, current, "is a UD send without set_ud_addr");
        }
        current = -1;
    }

    private boolean setter() {
        requireOpen();
        if (current < 0) {
            if (count == 0) {
                fail(Errno.EINVAL, 0, "is a setter called before any WR builder");
            }
            return false;
        }
        return true;
    }

    private boolean data() {
        if (!setter()) {
            return false;
        }
        if (!needData) {
            fail(Errno.EINVAL, current, "has a second data setter");
            return false;
        }
        needData = false;
        return true;
    }

    private boolean entries(int n, String what) {
        if (n < 0 || n > batch.maxSge()) {
            fail(Errno.EINVAL, current, "has " + n + " " + what + ", the QP allows " + batch.maxSge());
            return false;
        }
        return true;
    }

    private boolean inline(long length) {
        int op = batch.opcode(current);
        if (op == WrOpcode.RDMA_READ || op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD) {
            fail(Errno.EINVAL, current, "is " + WrOpcode.name(op) + ": inline data is for SEND and RDMA WRITE only");
            return false;
        }
        if (length > maxInline) {
            fail(Errno.EINVAL, current, "has " + length + " bytes inline, the QP's max_inline_data is " + maxInline);
            return false;
        }
        return true;
    }

    /** Remembers the first misuse; {@link #complete()} reports it. Messages are built only on the error path. */
    private void fail(Errno e, int index, String why) {
        if (error == null) {
            errno = e.number();
            errorIndex = index;
            error = why;
        }
    }
}
