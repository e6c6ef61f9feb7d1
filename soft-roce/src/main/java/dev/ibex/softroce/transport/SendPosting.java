package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Posting send WRs to a QP (rxe_verbs.c's {@code rxe_post_send}, {@code validate_send_wr} and {@code init_send_wqe}):
 * each WR is checked — the opcode against the QP type, gather entries against the QP's capacities, atomics'
 * alignment, a UD WR's address handle, a bind's window and region — and written into a send WQE (inline data copied
 * in), published, and the send task kicked.
 *
 * <p>Threading: the posting thread of its QP only (the QP's posting contract).
 */
final class SendPosting {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final SoftProtectionDomain pd;
    private final QpType type;
    private final QpCap cap;
    private final SendQueue sq;
    private final Sender sender;
    /** The spare WQE {@link #postSendAll} checks a chain with, made on first use. */
    private SendWqe probe;

    SendPosting(SoftQueuePair qp, SoftDevice device, SoftProtectionDomain pd, QpType type, QpCap cap, SendQueue sq,
            Sender sender) {
        this.qp = qp;
        this.device = device;
        this.pd = pd;
        this.type = type;
        this.cap = cap;
        this.sq = sq;
        this.sender = sender;
    }

    /** {@link SoftQueuePair#postSend} once the QP was found open. */
    void postSend(SendBatch batch, int count) {
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        int s = qp.stateCode();
        if (s == QpState.RESET.ordinal() || s == QpState.INIT.ordinal() || s == QpState.RTR.ordinal()) {
            throw new PostException("ibv_post_send", Errno.EINVAL.number(), 0,
                    "the QP is in " + QpState.ofCode(s) + "; sends can be posted from RTS on");
        }
        int posted = 0;
        try {
            for (int i = 0; i < count; i++) {
                SendWqe w = sq.claim();
                if (w == null) {
                    throw new PostException("ibv_post_send", Errno.ENOMEM.number(), i, "the send queue is full ("
                            + cap.maxSendWr() + " WRs outstanding): poll the send CQ (signal at least every Nth WR)");
                }
                String bad = fill(w, batch, i);
                if (bad != null) {
                    throw new PostException("ibv_post_send", Errno.EINVAL.number(), i, bad);
                }
                sq.publish();
                posted++;
            }
        } finally {
            if (posted > 0) {
                sender.kick();
            }
        }
    }

    /**
     * {@link SoftQueuePair#postSendAll} once the QP was found open: all or none, for {@link WrBatch#complete()} —
     * refuses the whole chain (failed index 0, nothing posted) when the send queue lacks room for it or any WR is
     * invalid, checking each by filling a spare WQE, then posts it through the QP. Room only grows meanwhile (this
     * thread is the only producer), so the post that follows takes every WR.
     */
    void postSendAll(SendBatch batch, int count) {
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        if (sq.capacity() - sq.size() < count) {
            throw new PostException("ibv_wr_complete", Errno.ENOMEM.number(), 0, "the send queue has room for "
                    + (sq.capacity() - sq.size()) + " of the batch's " + count + " WRs: poll the send CQ");
        }
        if (probe == null) {
            probe = new SendWqe(cap.maxSendSge(),
                    cap.maxInlineData() > 0 ? Arena.ofAuto().allocate(cap.maxInlineData(), 8) : MemorySegment.NULL);
        }
        for (int i = 0; i < count; i++) {
            String bad = fill(probe, batch, i);
            if (bad != null) {
                throw new PostException("ibv_wr_complete", Errno.EINVAL.number(), 0,
                        "the batch was discarded: WR " + i + ": " + bad);
            }
        }
        qp.postSend(batch, count);
    }

    /** Copies WR {@code i} into {@code w}; returns why it is invalid, or {@code null}. */
    private String fill(SendWqe w, SendBatch b, int i) {
        int op = b.opcode(i);
        boolean ok = type == QpType.UD ? op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM
                : op == WrOpcode.SEND || op == WrOpcode.SEND_WITH_IMM || op == WrOpcode.SEND_WITH_INV
                        || op == WrOpcode.RDMA_WRITE || op == WrOpcode.RDMA_WRITE_WITH_IMM || op == WrOpcode.RDMA_READ
                        || op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD
                        || op == WrOpcode.BIND_MW || op == WrOpcode.LOCAL_INV;
        if (!ok) {
            return "opcode " + WrOpcode.name(op) + " is not supported on a " + type + " QP of the soft device";
        }
        if (op == WrOpcode.BIND_MW || op == WrOpcode.LOCAL_INV) {
            return fillLocal(w, b, i, op);
        }
        int flags = b.flags(i);
        int n = b.numSge(i);
        if (n < 0 || n > cap.maxSendSge()) {
            return "the WR has " + n + " gather entries, the QP allows " + cap.maxSendSge();
        }
        long total = 0;
        for (int j = 0; j < n; j++) {
            total += Integer.toUnsignedLong(b.sgeLength(i, j));
        }
        if (total > SoftDevice.MAX_MESSAGE_SIZE) {
            return "message of " + total + " bytes exceeds the port's maximum of " + SoftDevice.MAX_MESSAGE_SIZE;
        }
        boolean atomic = op == WrOpcode.ATOMIC_CMP_AND_SWP || op == WrOpcode.ATOMIC_FETCH_AND_ADD;
        boolean inline = (flags & SendFlags.INLINE) != 0;
        w.wrId = b.wrId(i);
        w.opcode = op;
        w.flags = flags;
        w.imm = b.immData(i);
        w.invalidateRkey = b.invalidateRkey(i);
        w.ah = null;
        if (atomic) {
            if (n != 1 || total != 8) {
                return "an atomic WR needs exactly one 8-byte gather entry";
            }
            w.remoteAddr = b.remoteAddr(i);
            if ((w.remoteAddr & 7) != 0) {
                return "an atomic's remote address must be 8-byte aligned, got 0x" + Long.toHexString(w.remoteAddr);
            }
            w.rkey = b.atomicRkey(i);
            w.compareAdd = b.atomicCompareAdd(i);
            w.swap = b.atomicSwap(i);
            if (inline) {
                return "atomics cannot be inline";
            }
        } else if (type == QpType.RC) {
            w.remoteAddr = b.remoteAddr(i);
            w.rkey = b.rkey(i);
        } else {
            SoftAddressHandle ah = device.addressHandle(b.udAh(i));
            if (ah == null || ah.pd() != pd) {
                return "the WR's address handle is not a live AH of this QP's protection domain";
            }
            w.ah = ah;
            w.remoteQpn = b.udRemoteQpn(i) & 0xFFFFFF;
            w.remoteQkey = b.udRemoteQkey(i);
        }
        if (inline) {
            if (op == WrOpcode.RDMA_READ) {
                return "RDMA READ cannot be inline";
            }
            if (total > cap.maxInlineData()) {
                return "inline data of " + total + " bytes exceeds the QP's max_inline_data of " + cap.maxInlineData();
            }
            long at = 0;
            for (int j = 0; j < n; j++) {
                int len = b.sgeLength(i, j);
                if (len == 0) {
                    continue;
                }
                if (!device.copyInline(pd, b.sgeAddr(i, j), len, b.sgeLkey(i, j), w.inline, at)) {
                    return "inline data at 0x" + Long.toHexString(b.sgeAddr(i, j)) + " (" + len
                            + " bytes) is not in memory registered on this device: the soft provider copies inline"
                            + " data through the memory region that holds it";
                }
                at += len;
            }
            w.numSge = 0;
        } else {
            w.numSge = n;
            for (int j = 0; j < n; j++) {
                w.sgeAddr[j] = b.sgeAddr(i, j);
                w.sgeLength[j] = b.sgeLength(i, j);
                w.sgeLkey[j] = b.sgeLkey(i, j);
            }
        }
        w.length = total;
        w.state = SendWqe.POSTED;
        w.status = 0;
        w.firstPsn = 0;
        w.lastPsn = 0;
        w.hasRdAtomic = false;
        w.iova = w.remoteAddr;
        w.rewind();
        return null;
    }

    /** A BIND_MW or LOCAL_INV WR: no data; a bind names a window and a region of this QP's PD. */
    private String fillLocal(SendWqe w, SendBatch b, int i, int op) {
        w.wrId = b.wrId(i);
        w.opcode = op;
        w.flags = b.flags(i) & ~SendFlags.INLINE;
        w.imm = 0;
        w.ah = null;
        w.numSge = 0;
        w.length = 0;
        w.remoteAddr = 0;
        w.mw = null;
        w.bindMr = null;
        if (op == WrOpcode.LOCAL_INV) {
            w.invalidateRkey = b.invalidateRkey(i);
        } else {
            long handle = b.bindMwHandle(i);
            Object o = handle <= 0 || handle > 0xFFFFFF ? null : device.memoryKey((int) handle << 8);
            if (!(o instanceof SoftMemoryWindow mw) || mw.softPd() != pd) {
                return "the BIND_MW WR's window is not a live memory window of this QP's protection domain";
            }
            if (mw.type() != dev.ibex.cm.spi.MemoryWindow.Type.TYPE_2) {
                return "type 1 windows are bound with ibv_bind_mw (QueuePair.bindMemoryWindow), not with a BIND_MW WR";
            }
            SoftMemoryRegion mr = device.memoryRegion((int) b.bindMwMrHandle(i));
            if (mr == null || mr.softPd() != pd) {
                return "the BIND_MW WR's region is not a live memory region of this QP's protection domain";
            }
            w.mw = mw;
            w.bindMr = mr;
            w.rkey = b.bindMwRkey(i);
            w.bindAddr = b.bindMwAddr(i);
            w.bindLength = b.bindMwLength(i);
            w.bindAccess = b.bindMwAccess(i);
        }
        w.state = SendWqe.POSTED;
        w.status = 0;
        w.firstPsn = 0;
        w.lastPsn = 0;
        w.hasRdAtomic = false;
        w.iova = 0;
        w.rewind();
        return null;
    }

    /** A type 1 window's bind ({@code ibv_bind_mw}), already checked: no data, the window's next rkey. */
    void bind(SendWqe w, long wrId, int sendFlags, SoftMemoryWindow mw, SoftMemoryRegion region, int rkey, long addr,
            long length, int access) {
        w.wrId = wrId;
        w.opcode = WrOpcode.BIND_MW;
        w.flags = sendFlags & ~SendFlags.INLINE;
        w.imm = 0;
        w.ah = null;
        w.numSge = 0;
        w.length = 0;
        w.remoteAddr = 0;
        w.mw = mw;
        w.bindMr = region;
        w.rkey = rkey;
        w.bindAddr = addr;
        w.bindLength = length;
        w.bindAccess = access;
        w.state = SendWqe.POSTED;
        w.status = 0;
        w.hasRdAtomic = false;
        w.rewind();
    }
}
