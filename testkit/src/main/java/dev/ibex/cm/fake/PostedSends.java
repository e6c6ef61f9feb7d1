package dev.ibex.cm.fake;

import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A QP's send queue as the fake keeps it: every WR posted (the log scripted tests complete by wr_id), the count
 * held against {@code max_send_wr} until a later signaled completion is polled ({@link #retire}), the WRs waiting
 * for the peer to post receives — RNR with infinite retry: once one waits, every later one waits behind it, in
 * order — and the two ways a peer stops answering (silent: nothing completes; dead: the next WR fails). A WR is
 * read from its batch, executed ({@link RcExecution}, {@link UdDelivery}) and completed here. Lock held.
 */
final class PostedSends {
    private final FakeQp qp;
    private final List<FakeQp.SendWr> log = new ArrayList<>();
    private final ArrayDeque<FakeQp.SendWr> blocked = new ArrayDeque<>();
    private long nextSeq;
    private long retiredUpTo;
    /** The peer went silent: nothing posted from now on is executed, it waits until the QP is flushed. */
    boolean unanswered;
    /** The peer died: the next WR executed fails with {@code RETRY_EXC_ERR}. */
    boolean peerDead;

    PostedSends(FakeQp qp) {
        this.qp = qp;
    }

    /** {@return how many WRs count against {@code max_send_wr}} */
    long outstanding() {
        return nextSeq - retiredUpTo;
    }

    int blockedCount() {
        return blocked.size();
    }

    List<FakeQp.SendWr> snapshot() {
        return List.copyOf(log);
    }

    /** A signaled completion up to {@code seq} was polled: the WRs up to it leave the queue. */
    void retire(long seq) {
        retiredUpTo = Math.max(retiredUpTo, seq + 1);
    }

    /** Records a WR and, in loopback, executes it unless it has to wait (behind others, or for a receive). */
    void post(FakeQp.SendWr wr) {
        log.add(wr);
        if (qp.state == QpState.ERR) {
            complete(wr, WcStatus.WR_FLUSH_ERR, true);
        } else if (qp.fabric.mode == FakeFabric.Mode.LOOPBACK) {
            if (unanswered || !blocked.isEmpty() || !execute(wr)) {
                blocked.add(wr);
            }
        }
    }

    /** The peer posted receives: the waiting WRs go on, in order, until one has to wait again. */
    void resume() {
        FakeQp.SendWr wr;
        while (!unanswered && (wr = blocked.peek()) != null && qp.state == QpState.RTS) {
            if (!execute(wr)) {
                return;
            }
            blocked.poll();
        }
    }

    /** Completes every waiting WR with {@code WR_FLUSH_ERR} (the QP went to ERR). */
    void flushBlocked() {
        FakeQp.SendWr wr;
        while ((wr = blocked.poll()) != null) {
            complete(wr, WcStatus.WR_FLUSH_ERR, true);
        }
    }

    void clearBlocked() {
        blocked.clear();
    }

    /** Executes one WR; false when it must wait for a receive (RNR). */
    private boolean execute(FakeQp.SendWr wr) {
        if (qp.type == QpType.UD) {
            qp.ud.send(wr);
            return true;
        }
        return qp.rc.execute(wr);
    }

    /** Reads WR {@code i} of a batch, numbering it; {@code null} when it is invalid for this QP. */
    FakeQp.SendWr read(SendBatch b, int i) {
        int n = b.numSge(i);
        if (n > qp.cap.maxSendSge()) {
            return null;
        }
        long[] a = new long[n];
        int[] l = new int[n];
        int[] k = new int[n];
        int total = 0;
        for (int j = 0; j < n; j++) {
            a[j] = b.sgeAddr(i, j);
            l[j] = b.sgeLength(i, j);
            k[j] = b.sgeLkey(i, j);
            total += l[j];
        }
        int flags = b.flags(i);
        byte[] inline = null;
        if ((flags & SendFlags.INLINE) != 0) {
            if (total > qp.cap.maxInlineData()) {
                return null;
            }
            inline = qp.memory.gather(a, l, k, true);
            if (inline == null) {
                return null;
            }
        }
        if (qp.signalAll) {
            flags |= SendFlags.SIGNALED;
        }
        int opcode = b.opcode(i);
        boolean atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        return new FakeQp.SendWr(nextSeq++, b.wrId(i), opcode, flags, b.immData(i), b.remoteAddr(i),
                atomic ? b.atomicRkey(i) : b.rkey(i),
                b.atomicCompareAdd(i), b.atomicSwap(i), b.udAh(i), b.udRemoteQpn(i), b.udRemoteQkey(i), a, l, k,
                inline);
    }

    /** Completes a WR: always when {@code always} or it failed, otherwise only when it asked to be signaled. */
    void complete(FakeQp.SendWr wr, WcStatus status, boolean always) {
        if (always || status != WcStatus.SUCCESS || wr.signaled()) {
            int opcode = status == WcStatus.SUCCESS ? WrOpcode.completionOpcode(wr.opcode()) : 0;
            qp.sendCq.add(new FakeCq.Cqe(wr.wrId(), status, opcode,
                    wr.opcode() == WrOpcode.RDMA_READ ? wr.length() : 0, qp.qpNum, 0, 0, 0, qp, wr.seq()));
        }
    }

    /** Completes a WR in error and takes the QP to ERR, flushing the rest. */
    void fail(FakeQp.SendWr wr, WcStatus status) {
        complete(wr, status, true);
        qp.flush();
    }
}
