package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A queue pair. In loopback mode a connected RC pair moves data at post time: SEND consumes a posted receive of
 * the peer (or waits, with every later WR of the sender, until one is posted: RNR with infinite retry), WRITE,
 * READ and atomics check the peer's rkey and access rights. UD sends reach a QP by number or every QP attached to
 * a multicast group, with a 40-byte GRH in front of the payload. Moving to ERR flushes every posted WR with
 * {@code WR_FLUSH_ERR}. The send queue counts WRs until a later signaled completion of them is polled, so posting
 * past {@code max_send_wr} fails with ENOMEM as on real devices.
 *
 * <p>This class holds the QP's resources, state and receive queue; its parts are the send queue
 * ({@link PostedSends}), what an RC WR does at the peer ({@link RcExecution}), UD delivery ({@link UdDelivery}),
 * the L_Key/R_Key checked memory access ({@link QpMemory}) and the paths with their migration
 * ({@link QpPathMigration}).
 */
public final class FakeQp implements QueuePair {

    /** A posted receive: its scatter list. */
    record Recv(long wrId, long[] addr, int[] len, int[] lkey) {
        static Recv of(RecvBatch b, int i) {
            int n = b.numSge(i);
            long[] a = new long[n];
            int[] l = new int[n];
            int[] k = new int[n];
            for (int j = 0; j < n; j++) {
                a[j] = b.sgeAddr(i, j);
                l[j] = b.sgeLength(i, j);
                k[j] = b.sgeLkey(i, j);
            }
            return new Recv(b.wrId(i), a, l, k);
        }

        int capacity() {
            int c = 0;
            for (int x : len) {
                c += x;
            }
            return c;
        }
    }

    /**
     * A posted send WR, as recorded (for scripted tests) and executed.
     *
     * @param seq the WR's position among every send WR posted to this QP, from 0
     * @param wrId the caller's work request id, echoed in its completion
     * @param opcode the {@link WrOpcode} value
     * @param flags the {@link SendFlags} bits
     * @param imm the immediate data, in host order, for the {@code *_WITH_IMM} opcodes
     * @param remoteAddr the remote virtual address of a WRITE, READ or atomic
     * @param rkey the remote key of a WRITE, READ or atomic
     * @param compareAdd the compare operand of a compare-and-swap or the addend of a fetch-and-add
     * @param swap the swap operand of a compare-and-swap
     * @param ah the address handle of a UD send (its handle value), 0 on connected QPs
     * @param remoteQpn the destination QP number of a UD send
     * @param remoteQkey the destination Q_Key of a UD send
     * @param addr the gather list's addresses
     * @param len the gather list's lengths in bytes
     * @param lkey the gather list's local keys
     * @param inline the inline payload copied at post time, or {@code null} when the gather list is used
     */
    public record SendWr(long seq, long wrId, int opcode, int flags, int imm, long remoteAddr, int rkey,
            long compareAdd, long swap, long ah, int remoteQpn, int remoteQkey, long[] addr, int[] len, int[] lkey,
            byte[] inline) {
        /** {@return the payload length in bytes: the inline bytes, or the sum of the gather list's lengths} */
        public int length() {
            if (inline != null) {
                return inline.length;
            }
            int c = 0;
            for (int x : len) {
                c += x;
            }
            return c;
        }

        /** {@return whether the WR asked for a completion ({@link SendFlags#SIGNALED})} */
        public boolean signaled() {
            return (flags & SendFlags.SIGNALED) != 0;
        }
    }

    final FakeFabric fabric;
    final FakePd pd;
    final QpType type;
    final FakeCq sendCq;
    final FakeCq recvCq;
    final FakeSrq srq;
    final QpCap cap;
    final boolean signalAll;
    final int qpNum;
    private final ArrayDeque<Recv> rq = new ArrayDeque<>();
    final Set<Gid> groups = new HashSet<>();
    private Object context;
    QpState state = QpState.RESET;
    int qkey = UdParam.RDMA_UDP_QKEY;
    private int destQpn;
    FakeQp peer;
    FakeCmId cmId;
    boolean closed;
    // the QP's parts, one of each per QP (the fake allocates nothing more per WR for them)
    final QpMemory memory = new QpMemory(this);
    final PostedSends sends = new PostedSends(this);
    final RcExecution rc = new RcExecution(this);
    final UdDelivery ud = new UdDelivery(this);
    final QpPathMigration paths = new QpPathMigration(this);

    private FakeQp(FakePd pd, QpInitAttr a, int qpNum) {
        this.fabric = pd.device().fabric();
        this.pd = pd;
        this.type = a.type();
        this.sendCq = (FakeCq) a.sendCq();
        this.recvCq = (FakeCq) a.recvCq();
        this.srq = (FakeSrq) a.srq();
        this.cap = a.cap();
        this.signalAll = a.signalAll();
        this.context = a.context();
        this.qpNum = qpNum;
    }

    static FakeQp create(FakePd pd, QpInitAttr a, FakeCmId id) {
        FakeFabric f = pd.device().fabric();
        if (a.cap().maxInlineData() > FakeDevice.MAX_INLINE) {
            throw new RdmaException("ibv_create_qp", Errno.EINVAL, "max_inline_data " + a.cap().maxInlineData()
                    + " exceeds the device's " + FakeDevice.MAX_INLINE);
        }
        if (a.cap().maxSendWr() > 16384 || a.cap().maxRecvWr() > 16384 || a.cap().maxSendSge() > 4
                || a.cap().maxRecvSge() > 4) {
            throw new RdmaException("ibv_create_qp", Errno.EINVAL, "capacities exceed the device: " + a.cap());
        }
        FakeQp qp;
        synchronized (f.lock) {
            qp = new FakeQp(pd, a, f.nextQpn++);
            qp.cmId = id;
            qp.sendCq.users++;
            qp.recvCq.users++;
            if (qp.srq != null) {
                qp.srq.qps++;
            }
            pd.children++;
            f.qps.put(qp.qpNum, qp);
        }
        f.tracker.opened(qp);
        return qp;
    }

    // ---- QueuePair ----

    @Override public int qpNum() { return qpNum; }
    @Override public QpType type() { return type; }
    @Override public ProtectionDomain pd() { return pd; }
    @Override public CompletionQueue sendCq() { return sendCq; }
    @Override public CompletionQueue recvCq() { return recvCq; }
    @Override public SharedReceiveQueue srq() { return srq; }
    @Override public QpCap cap() { return cap; }
    @Override public WrBatch wrBatch() {
        if (wrBatch == null) {
            wrBatch = WrBatch.allocate(this, Arena.ofAuto());
        }
        return wrBatch;
    }
    private WrBatch wrBatch;
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }

    /** The RNR NAK delay code; 0 (655 ms) until someone loads another, as the CM leaves it. */
    private int minRnrTimer;

    @Override
    public void modify(QpAttr a) {
        synchronized (fabric.lock) {
            check();
            if (a.has(QpAttr.QKEY)) {
                qkey = a.qkey();
            }
            if (a.has(QpAttr.DEST_QPN)) {
                destQpn = a.destQpNum();
            }
            if (a.has(QpAttr.MIN_RNR_TIMER)) {
                minRnrTimer = a.minRnrTimer();
            }
            paths.modify(a);
            if (a.has(QpAttr.STATE)) {
                toState(a.state());
            }
        }
    }

    @Override
    public QpAttr query(int mask) {
        synchronized (fabric.lock) {
            check();
            QpAttr a = new QpAttr().state(state).cap(cap).pathMigState(paths.state()).qkey(qkey).destQpNum(destQpn)
                    .portNum(1).timeout(14).minRnrTimer(minRnrTimer);
            paths.describe(a);
            return a;
        }
    }

    @Override
    public void postSend(SendBatch b, int count) {
        synchronized (fabric.lock) {
            check();
            for (int i = 0; i < count; i++) {
                if (state == QpState.RESET || state == QpState.INIT || (type != QpType.UD && state == QpState.RTR)) {
                    throw new PostException("ibv_post_send", Errno.EINVAL.number(), i, "the QP is in " + state);
                }
                if (sends.outstanding() >= cap.maxSendWr()) {
                    fabric.violation("ibv_post_send past max_send_wr " + cap.maxSendWr() + " on QP " + qpNum);
                    throw new PostException("ibv_post_send", Errno.ENOMEM.number(), i, "the send queue is full");
                }
                SendWr wr = sends.read(b, i);
                if (wr == null) {
                    throw new PostException("ibv_post_send", Errno.EINVAL.number(), i, "invalid work request");
                }
                sends.post(wr);
            }
        }
    }

    @Override
    public void postRecv(RecvBatch b, int count) {
        synchronized (fabric.lock) {
            check();
            if (srq != null) {
                throw new PostException("ibv_post_recv", Errno.EINVAL.number(), 0, "the QP uses an SRQ");
            }
            for (int i = 0; i < count; i++) {
                if (rq.size() >= cap.maxRecvWr()) {
                    fabric.violation("ibv_post_recv past max_recv_wr " + cap.maxRecvWr() + " on QP " + qpNum);
                    throw new PostException("ibv_post_recv", Errno.ENOMEM.number(), i, "the receive queue is full");
                }
                Recv r = Recv.of(b, i);
                if (state == QpState.ERR) {
                    recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, qpNum, 0, 0, 0, null,
                            -1));
                } else {
                    rq.add(r);
                }
            }
            peerResume();
        }
    }

    @Override
    public void attachMulticast(Gid gid, int lid) {
        synchronized (fabric.lock) {
            check();
            if (type != QpType.UD) {
                throw new RdmaException("ibv_attach_mcast", Errno.EINVAL, "only UD QPs join multicast groups");
            }
            fabric.groups.computeIfAbsent(gid, g -> new HashSet<>()).add(this);
            groups.add(gid);
        }
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        synchronized (fabric.lock) {
            Set<FakeQp> members = fabric.groups.get(gid);
            if (members != null) {
                members.remove(this);
            }
            groups.remove(gid);
        }
    }

    @Override
    public void close() {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (Gid g : groups) {
                Set<FakeQp> members = fabric.groups.get(g);
                if (members != null) {
                    members.remove(this);
                }
            }
            groups.clear();
            fabric.qps.remove(qpNum);
            sendCq.users--;
            recvCq.users--;
            if (srq != null) {
                srq.qps--;
            }
            pd.children--;
            if (cmId != null && cmId.qpRef() == this) {
                cmId.forgetQp();
            }
            sends.clearBlocked();
            rq.clear();
        }
        fabric.tracker.closed(this);
    }

    // ---- test helpers ----

    /**
     * Every send WR posted so far (scripted tests complete them by wr_id).
     *
     * @return a snapshot of the posted WRs, in posting order
     */
    public List<SendWr> posted() {
        synchronized (fabric.lock) {
            return sends.snapshot();
        }
    }

    /** {@return how many receives are posted and not consumed (on the SRQ when the QP uses one)} */
    public int postedReceives() {
        synchronized (fabric.lock) {
            return srq != null ? srq.queue.size() : rq.size();
        }
    }

    /** {@return how many send WRs the QP still counts against {@code max_send_wr}} */
    public long outstandingSends() {
        synchronized (fabric.lock) {
            return sends.outstanding();
        }
    }

    /** {@return how many sends wait for the peer to post receives (RNR)} */
    public int blockedSends() {
        synchronized (fabric.lock) {
            return sends.blockedCount();
        }
    }

    /** {@return the QP's state now, as {@code ibv_query_qp} would report it} */
    public QpState currentState() {
        synchronized (fabric.lock) {
            return state;
        }
    }

    /** {@return the QP's automatic path migration state now} */
    public MigState migrationState() {
        synchronized (fabric.lock) {
            return paths.state();
        }
    }

    /** {@return whether the QP has been destroyed} */
    public boolean isClosed() {
        synchronized (fabric.lock) {
            return closed;
        }
    }

    /**
     * The peer falls silent (killed, unplugged): from now on nothing this QP posts is answered — sends stay
     * outstanding (the fake has no retry timer: nothing ever completes until the QP is flushed).
     */
    public void peerGoesSilent() {
        synchronized (fabric.lock) {
            sends.unanswered = true;
        }
    }

    /**
     * The peer dies (kill -9, its host gone) without a word: the next work request this QP posts fails with
     * {@code RETRY_EXC_ERR}, as a real QP's does once its retries are spent, and the QP goes to ERR.
     */
    public void peerDies() {
        synchronized (fabric.lock) {
            sends.peerDead = true;
        }
    }

    /**
     * The primary path fails: an ARMED QP migrates (PATH_MIG on it and, as its first packet on the alternate
     * arrives, on its ARMED peer), otherwise PATH_MIG_ERR.
     */
    public void failPrimaryPath() {
        synchronized (fabric.lock) {
            paths.primaryFailed();
        }
    }

    // ---- internals (lock held) ----

    boolean hasRecv() {
        return srq != null ? !srq.queue.isEmpty() : !rq.isEmpty();
    }

    Recv takeRecv() {
        return srq != null ? srq.take() : rq.poll();
    }

    void raise(AsyncEventType t) {
        fabric.raise(new AsyncEvent(t, pd.device(), this, null, null, 0));
    }

    void connect(FakeQp other) {
        peer = other;
        other.peer = this;
        state = QpState.RTS;
        other.state = QpState.RTS;
        destQpn = other.qpNum;
        other.destQpn = qpNum;
    }

    void toState(QpState s) {
        if (s == QpState.ERR) {
            flush();
        } else if (s == QpState.RESET) {
            rq.clear();
            sends.clearBlocked();
            state = s;
        } else {
            state = s;
        }
    }

    /** Moves to ERR and completes everything posted with WR_FLUSH_ERR. */
    void flush() {
        if (state == QpState.ERR || closed) {
            return;
        }
        state = QpState.ERR;
        Recv r;
        while ((r = rq.poll()) != null) {
            recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, qpNum, 0, 0, 0, null, -1));
        }
        sends.flushBlocked();
        if (srq != null) {
            raise(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    /** A signaled completion of this QP's send {@code seq} was polled. */
    void retire(long seq) {
        sends.retire(seq);
    }

    /** The peer posted receives: blocked sends of this QP's peer may go on. */
    void peerResume() {
        if (peer != null) {
            peer.sends.resume();
        }
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("QP " + qpNum + " is destroyed");
        }
    }

    @Override
    public String toString() {
        return "FakeQp[" + qpNum + " " + type + " " + state + "]";
    }
}
