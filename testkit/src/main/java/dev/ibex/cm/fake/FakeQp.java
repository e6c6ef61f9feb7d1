package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
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
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
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

    private final FakeFabric fabric;
    private final FakePd pd;
    private final QpType type;
    private final FakeCq sendCq;
    private final FakeCq recvCq;
    private final FakeSrq srq;
    private final QpCap cap;
    private final boolean signalAll;
    private final int qpNum;
    private final ArrayDeque<Recv> rq = new ArrayDeque<>();
    private final ArrayDeque<SendWr> blocked = new ArrayDeque<>();
    private boolean unanswered;
    private boolean peerDead;
    private final List<SendWr> log = new ArrayList<>();
    final Set<Gid> groups = new HashSet<>();
    private Object context;
    private QpState state = QpState.RESET;
    private long nextSeq;
    private long retiredUpTo;
    private int qkey = UdParam.RDMA_UDP_QKEY;
    private int destQpn;
    private AhAttr primary;
    private AhAttr alternate;
    private int altPort;
    private MigState mig = MigState.MIGRATED;
    FakeQp peer;
    FakeCmId cmId;
    private boolean closed;

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
            if (a.has(QpAttr.AV)) {
                primary = a.ahAttr();
            }
            if (a.has(QpAttr.ALT_PATH)) {
                alternate = a.altAhAttr();
                altPort = a.altPortNum();
            }
            if (a.has(QpAttr.PATH_MIG_STATE)) {
                switch (a.pathMigState()) {
                    case REARM -> {
                        if (alternate == null) {
                            throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "REARM without an alternate path");
                        }
                        if (mig == MigState.ARMED) {
                            throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "REARM while ARMED");
                        }
                        mig = MigState.REARM;
                        // ARMED only when the peer re-armed too (the MigReq = 0 exchange, instant in the fake)
                        if (peer != null && peer.mig != MigState.MIGRATED) {
                            mig = MigState.ARMED;
                            peer.mig = MigState.ARMED;
                        }
                    }
                    case MIGRATED -> {
                        if (mig == MigState.REARM) {
                            throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "can only migrate when ARMED");
                        }
                        if (mig == MigState.ARMED) {
                            migrate();
                            if (peer != null && peer.mig == MigState.ARMED) {
                                peer.migrate(); // its first packet on the alternate
                            }
                        }
                    }
                    case ARMED -> throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "ARMED is not settable");
                }
            }
            if (a.has(QpAttr.STATE)) {
                toState(a.state());
            }
        }
    }

    @Override
    public QpAttr query(int mask) {
        synchronized (fabric.lock) {
            check();
            QpAttr a = new QpAttr().state(state).cap(cap).pathMigState(mig).qkey(qkey).destQpNum(destQpn).portNum(1)
                    .timeout(14).minRnrTimer(minRnrTimer);
            if (primary != null) {
                a.ahAttr(primary);
            }
            if (alternate != null) {
                a.altPath(alternate, altPort, 14);
            }
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
                if (nextSeq - retiredUpTo >= cap.maxSendWr()) {
                    fabric.violation("ibv_post_send past max_send_wr " + cap.maxSendWr() + " on QP " + qpNum);
                    throw new PostException("ibv_post_send", Errno.ENOMEM.number(), i, "the send queue is full");
                }
                SendWr wr = read(b, i);
                if (wr == null) {
                    throw new PostException("ibv_post_send", Errno.EINVAL.number(), i, "invalid work request");
                }
                log.add(wr);
                if (state == QpState.ERR) {
                    sendCqe(wr, WcStatus.WR_FLUSH_ERR, true);
                } else if (fabric.mode == FakeFabric.Mode.LOOPBACK) {
                    if (unanswered || !blocked.isEmpty() || !execute(wr)) {
                        blocked.add(wr);
                    }
                }
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
            blocked.clear();
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
            return List.copyOf(log);
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
            return nextSeq - retiredUpTo;
        }
    }

    /** {@return how many sends wait for the peer to post receives (RNR)} */
    public int blockedSends() {
        synchronized (fabric.lock) {
            return blocked.size();
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
            return mig;
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
            unanswered = true;
        }
    }

    /**
     * The peer dies (kill -9, its host gone) without a word: the next work request this QP posts fails with
     * {@code RETRY_EXC_ERR}, as a real QP's does once its retries are spent, and the QP goes to ERR.
     */
    public void peerDies() {
        synchronized (fabric.lock) {
            peerDead = true;
        }
    }

    /**
     * The primary path fails: an ARMED QP migrates (PATH_MIG on it and, as its first packet on the alternate
     * arrives, on its ARMED peer), otherwise PATH_MIG_ERR.
     */
    public void failPrimaryPath() {
        synchronized (fabric.lock) {
            if (mig == MigState.ARMED) {
                migrate();
                if (peer != null && peer.mig == MigState.ARMED) {
                    peer.migrate();
                }
            } else {
                raise(AsyncEventType.PATH_MIG_ERR);
            }
        }
    }

    // ---- internals (lock held) ----

    boolean hasRecv() {
        return srq != null ? !srq.queue.isEmpty() : !rq.isEmpty();
    }

    Recv takeRecv() {
        return srq != null ? srq.take() : rq.poll();
    }

    private void migrate() {
        primary = alternate; // the alternate stays loaded, equal to the new primary, until another is loaded
        mig = MigState.MIGRATED;
        raise(AsyncEventType.PATH_MIG);
    }

    private void raise(AsyncEventType t) {
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
            blocked.clear();
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
        SendWr wr;
        while ((wr = blocked.poll()) != null) {
            sendCqe(wr, WcStatus.WR_FLUSH_ERR, true);
        }
        if (srq != null) {
            raise(AsyncEventType.QP_LAST_WQE_REACHED);
        }
    }

    void retire(long seq) {
        retiredUpTo = Math.max(retiredUpTo, seq + 1);
    }

    /** The peer posted receives: blocked sends of this QP's peer may go on. */
    void peerResume() {
        if (peer != null) {
            peer.resume();
        }
    }

    private void resume() {
        SendWr wr;
        while (!unanswered && (wr = blocked.peek()) != null && state == QpState.RTS) {
            if (!execute(wr)) {
                return;
            }
            blocked.poll();
        }
    }

    private SendWr read(SendBatch b, int i) {
        int n = b.numSge(i);
        if (n > cap.maxSendSge()) {
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
            if (total > cap.maxInlineData()) {
                return null;
            }
            inline = gather(a, l, k, true);
            if (inline == null) {
                return null;
            }
        }
        if (signalAll) {
            flags |= SendFlags.SIGNALED;
        }
        int opcode = b.opcode(i);
        boolean atomic = opcode == WrOpcode.ATOMIC_CMP_AND_SWP || opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
        return new SendWr(nextSeq++, b.wrId(i), opcode, flags, b.immData(i), b.remoteAddr(i),
                atomic ? b.atomicRkey(i) : b.rkey(i),
                b.atomicCompareAdd(i), b.atomicSwap(i), b.udAh(i), b.udRemoteQpn(i), b.udRemoteQkey(i), a, l, k,
                inline);
    }

    private void sendCqe(SendWr wr, WcStatus status, boolean always) {
        if (always || status != WcStatus.SUCCESS || wr.signaled()) {
            int opcode = status == WcStatus.SUCCESS ? WrOpcode.completionOpcode(wr.opcode()) : 0;
            sendCq.add(new FakeCq.Cqe(wr.wrId(), status, opcode, wr.opcode() == WrOpcode.RDMA_READ ? wr.length() : 0,
                    qpNum, 0, 0, 0, this, wr.seq()));
        }
    }

    private void fail(SendWr wr, WcStatus status) {
        sendCqe(wr, status, true);
        flush();
    }

    /** Executes one WR; false when it must wait for a receive (RNR). */
    private boolean execute(SendWr wr) {
        if (type == QpType.UD) {
            sendUd(wr);
            return true;
        }
        FakeQp to = peer;
        if (to == null || to.closed || peerDead || (to.state != QpState.RTS && to.state != QpState.RTR)) {
            fail(wr, WcStatus.RETRY_EXC_ERR);
            return true;
        }
        switch (wr.opcode()) {
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM -> {
                boolean write = wr.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM;
                if (!to.hasRecv()) {
                    return false;
                }
                byte[] data = data(wr);
                if (data == null) {
                    fail(wr, WcStatus.LOC_PROT_ERR);
                    return true;
                }
                if (write && !remoteCopyIn(to, wr, data)) {
                    return true;
                }
                Recv r = to.takeRecv();
                if (!write && !to.scatter(r, data, 0)) {
                    to.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, to.qpNum, 0, 0, 0,
                            null, -1));
                    to.flush();
                    fail(wr, WcStatus.REM_INV_REQ_ERR);
                    return true;
                }
                boolean imm = wr.opcode() != WrOpcode.SEND;
                to.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.SUCCESS, write ? WcOpcode.RECV_RDMA_WITH_IMM
                        : WcOpcode.RECV, data.length, to.qpNum, imm ? WcFlags.WITH_IMM : 0, wr.imm(), qpNum, null,
                        -1));
                sendCqe(wr, WcStatus.SUCCESS, false);
            }
            case WrOpcode.RDMA_WRITE -> {
                byte[] data = data(wr);
                if (data == null) {
                    fail(wr, WcStatus.LOC_PROT_ERR);
                } else if (remoteCopyIn(to, wr, data)) {
                    sendCqe(wr, WcStatus.SUCCESS, false);
                }
            }
            case WrOpcode.RDMA_READ -> {
                MemorySegment src = remote(to, wr.remoteAddr(), wr.rkey(), wr.length(), Access.REMOTE_READ);
                if (src == null) {
                    fail(wr, WcStatus.REM_ACCESS_ERR);
                } else if (!scatterLocal(wr, src.toArray(ValueLayout.JAVA_BYTE))) {
                    fail(wr, WcStatus.LOC_PROT_ERR);
                } else {
                    sendCqe(wr, WcStatus.SUCCESS, false);
                }
            }
            case WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD -> {
                if ((wr.remoteAddr() & 7) != 0 || wr.length() != 8) {
                    fail(wr, WcStatus.REM_INV_REQ_ERR);
                    return true;
                }
                MemorySegment t = remote(to, wr.remoteAddr(), wr.rkey(), 8, Access.REMOTE_ATOMIC);
                if (t == null) {
                    fail(wr, WcStatus.REM_ACCESS_ERR);
                    return true;
                }
                long old = t.get(ValueLayout.JAVA_LONG, 0);
                long next = wr.opcode() == WrOpcode.ATOMIC_FETCH_AND_ADD ? old + wr.compareAdd()
                        : (old == wr.compareAdd() ? wr.swap() : old);
                byte[] result = new byte[8];
                MemorySegment.ofArray(result).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, old);
                if (!scatterLocal(wr, result)) {
                    fail(wr, WcStatus.LOC_PROT_ERR);
                    return true;
                }
                t.set(ValueLayout.JAVA_LONG, 0, next);
                sendCqe(wr, WcStatus.SUCCESS, false);
            }
            default -> fail(wr, WcStatus.LOC_QP_OP_ERR);
        }
        return true;
    }

    private boolean remoteCopyIn(FakeQp to, SendWr wr, byte[] data) {
        if (data.length == 0) {
            return true; // IBA C9-88: a zero-length transfer checks no R_Key (keepalive probes rely on it)
        }
        MemorySegment dst = remote(to, wr.remoteAddr(), wr.rkey(), data.length, Access.REMOTE_WRITE);
        if (dst == null) {
            fail(wr, WcStatus.REM_ACCESS_ERR);
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(data), 0, dst, 0, data.length);
        return true;
    }

    private void sendUd(SendWr wr) {
        byte[] data = data(wr);
        if (data == null) {
            fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        if (data.length > 1024) {
            sendCqe(wr, WcStatus.LOC_LEN_ERR, true);
            return;
        }
        FakeAh ah = fabric.ahs.get(wr.ah());
        if (ah == null) {
            sendCqe(wr, WcStatus.LOC_QP_OP_ERR, true);
            return;
        }
        Gid dgid = ah.attr().dgid();
        List<FakeQp> targets = new ArrayList<>();
        if (wr.remoteQpn() == UdParam.MULTICAST_QPN) {
            Set<FakeQp> members = fabric.groups.get(dgid);
            if (members != null) {
                for (FakeQp m : members) {
                    if (m != this) {
                        targets.add(m);
                    }
                }
            }
        } else {
            FakeQp t = fabric.qps.get(wr.remoteQpn());
            if (t != null && t.type == QpType.UD && t.pd.device().gid().equals(dgid)) {
                targets.add(t);
            }
        }
        for (FakeQp t : targets) {
            if (t.closed || t.qkey != wr.remoteQkey() || (t.state != QpState.RTS && t.state != QpState.RTR)) {
                continue;
            }
            Recv r = t.takeRecv();
            if (r == null) {
                continue; // UD drops what finds no receive
            }
            byte[] grh = new byte[VerbsAbi.GRH_SIZE + data.length];
            writeGrh(grh, pd.device().gid(), dgid, data.length);
            System.arraycopy(data, 0, grh, VerbsAbi.GRH_SIZE, data.length);
            if (!t.scatter(r, grh, 0)) {
                t.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, t.qpNum, 0, 0, 0, null,
                        -1));
                continue;
            }
            boolean imm = wr.opcode() == WrOpcode.SEND_WITH_IMM;
            t.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.SUCCESS, WcOpcode.RECV, grh.length, t.qpNum,
                    WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), wr.imm(), qpNum, null, -1));
        }
        sendCqe(wr, WcStatus.SUCCESS, false);
    }

    /**
     * What rxe puts in front of a UD receive: over IPv4 the IPv4 header in bytes 20..39 (the first 20 undefined),
     * otherwise an IPv6 header with the GIDs at 8 and 24.
     */
    static void writeGrh(byte[] grh, Gid sgid, Gid dgid, int payload) {
        if (sgid.isIpv4Mapped() && dgid.isIpv4Mapped()) {
            int o = 20;
            int total = 20 + 8 + 12 + 8 + payload + 4; // IPv4 + UDP + BTH + DETH + payload + ICRC
            grh[o] = 0x45;
            grh[o + 2] = (byte) (total >> 8);
            grh[o + 3] = (byte) total;
            grh[o + 6] = 0x40; // don't fragment
            grh[o + 8] = 64;
            grh[o + 9] = 17; // UDP
            for (int i = 0; i < 4; i++) {
                grh[o + 12 + i] = sgid.byteAt(12 + i);
                grh[o + 16 + i] = dgid.byteAt(12 + i);
            }
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                sum += ((grh[o + i] & 0xFF) << 8) | (grh[o + i + 1] & 0xFF);
            }
            while ((sum >> 16) != 0) {
                sum = (sum & 0xFFFF) + (sum >> 16);
            }
            int check = ~sum & 0xFFFF;
            grh[o + 10] = (byte) (check >> 8);
            grh[o + 11] = (byte) check;
        } else {
            grh[0] = 0x60;
            grh[4] = (byte) (payload >> 8);
            grh[5] = (byte) payload;
            grh[6] = 0x1B; // next header: IB BTH
            grh[7] = 64;
            for (int i = 0; i < 16; i++) {
                grh[8 + i] = sgid.byteAt(i);
                grh[24 + i] = dgid.byteAt(i);
            }
        }
    }

    private byte[] data(SendWr wr) {
        return wr.inline() != null ? wr.inline() : gather(wr.addr(), wr.len(), wr.lkey(), false);
    }

    private byte[] gather(long[] addr, int[] len, int[] lkey, boolean inline) {
        int total = 0;
        for (int x : len) {
            total += x;
        }
        byte[] out = new byte[total];
        int pos = 0;
        for (int j = 0; j < addr.length; j++) {
            MemorySegment s = local(addr[j], len[j], lkey[j], null);
            if (s == null) {
                if (!inline) {
                    return null;
                }
                s = MemorySegment.ofAddress(addr[j]).reinterpret(len[j]);
            }
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, out, pos, len[j]);
            pos += len[j];
        }
        return out;
    }

    private boolean scatter(Recv r, byte[] data, int from) {
        if (data.length - from > r.capacity()) {
            return false;
        }
        int pos = from;
        for (int j = 0; j < r.addr().length && pos < data.length; j++) {
            int n = Math.min(r.len()[j], data.length - pos);
            MemorySegment d = local(r.addr()[j], n, r.lkey()[j], Access.LOCAL_WRITE);
            if (d == null) {
                return false;
            }
            MemorySegment.copy(data, pos, d, ValueLayout.JAVA_BYTE, 0, n);
            pos += n;
        }
        return true;
    }

    private boolean scatterLocal(SendWr wr, byte[] data) {
        return scatter(new Recv(wr.wrId(), wr.addr(), wr.len(), wr.lkey()), data, 0);
    }

    private MemorySegment local(long addr, long len, int lkey, Access need) {
        FakeMr mr = fabric.mrs.get(lkey);
        if (mr == null || mr.pd() != pd || (need != null && !mr.allows(need))) {
            return null;
        }
        return mr.slice(addr, len);
    }

    private static MemorySegment remote(FakeQp to, long addr, int rkey, long len, Access need) {
        FakeMr mr = to.fabric.mrs.get(rkey);
        if (mr == null || mr.pd() != to.pd || !mr.allows(need)) {
            return null;
        }
        return mr.slice(addr, len);
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
