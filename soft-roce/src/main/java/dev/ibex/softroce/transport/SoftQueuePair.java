package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
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
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.Arena;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ibv_qp} for RC and UD. Posting copies WRs into preallocated WQE rings and kicks the QP's send task, which
 * normally runs the requester right away on the posting thread; packets that arrive are handed to the responder or
 * the completer on the receive thread (see {@link Sender} and {@link Responder}).
 *
 * <p>The QP's state and {@link #modify} are {@link QpStateMachine}'s (checked against {@link QpTransitions},
 * {@link QpAttributes} and {@link PathMigration}, applied while neither task runs, all or nothing), posting sends is
 * {@link SendPosting}'s, multicast attachment {@link QpMulticast}'s; this class is the verbs façade (rxe_verbs.c).
 *
 * <p>Threading: posting is confined to one thread at a time (the framework's loop); {@link #modify},
 * {@link #query} and {@link #close} are thread-safe. The NIC side (receive threads, timers) runs concurrently and
 * meets the poster only in the WQE rings (single producer, single consumer) and the CQs.
 */
public final class SoftQueuePair implements QueuePair {
    private final SoftDevice device;
    private final SoftProtectionDomain pd;
    private final QpType type;
    private final int qpn;
    private final SoftCompletionQueue sendCq;
    private final SoftCompletionQueue recvCq;
    private final SoftSharedReceiveQueue srq;
    private final QpCap cap;
    private final boolean signalAll;
    private final SendQueue sq;
    private final RecvQueue rq;
    private final Sender sender;
    private final Responder responder;
    private final Object modifyLock = new Object();
    /** The multicast groups this (UD) QP is attached to. */
    private final QpMulticast multicast;
    /** UD datagrams dropped on arrival (receive threads and the receive task). */
    private final AtomicLong receiveDrops = new AtomicLong();
    private volatile Object context;
    private volatile boolean closed;

    /** The modifiable attributes but the paths, written by modify while both tasks are held. */
    private final QpAttributes attrs = new QpAttributes();
    /** Checks posted send WRs, writes them into WQEs and kicks the send task. */
    private final SendPosting posting;
    /** Primary and alternate path, port, P_Key index, ACK timeout and the APM state. */
    private final PathMigration paths = new PathMigration(this);
    /** The state and its changes (modify, the transport's errors, SQD's drain). */
    private final QpStateMachine states = new QpStateMachine(this, attrs, paths, modifyLock);
    /** Posting thread only: the QP's extended-posting builder, made on first use. */
    private WrBatch wrBatch;

    SoftQueuePair(SoftProtectionDomain pd, QpInitAttr attr) {
        this.device = pd.softDevice();
        this.pd = pd;
        this.type = attr.type();
        if (type == QpType.UC) {
            throw new RdmaException("ibv_create_qp", Errno.ENOTSUP,
                    "the soft-roce provider implements RC and UD QPs only");
        }
        if (!(attr.sendCq() instanceof SoftCompletionQueue scq) || scq.device() != device
                || !(attr.recvCq() instanceof SoftCompletionQueue rcq) || rcq.device() != device) {
            throw new IllegalArgumentException("the CQs must belong to the QP's device " + device.name());
        }
        if (attr.srq() != null && (!(attr.srq() instanceof SoftSharedReceiveQueue s) || s.pd() != pd)) {
            throw new IllegalArgumentException("the SRQ must belong to the QP's protection domain");
        }
        var dev = device.queryDevice();
        QpCap c = attr.cap();
        if (c.maxSendWr() > dev.maxQpWr() || c.maxRecvWr() > dev.maxQpWr() || c.maxSendSge() > dev.maxSge()
                || c.maxRecvSge() > dev.maxSge() || c.maxInlineData() > SoftDevice.MAX_INLINE) {
            throw new RdmaException("ibv_create_qp", Errno.EINVAL, "capacities " + c + " exceed the device's: at most "
                    + dev.maxQpWr() + " WRs, " + dev.maxSge() + " SGEs and " + SoftDevice.MAX_INLINE + " inline bytes");
        }
        this.sendCq = (SoftCompletionQueue) attr.sendCq();
        this.recvCq = (SoftCompletionQueue) attr.recvCq();
        this.srq = (SoftSharedReceiveQueue) attr.srq();
        int sendWr = Math.max(1, c.maxSendWr());
        int sendSge = Math.max(1, c.maxSendSge());
        int recvSge = Math.max(1, c.maxRecvSge());
        this.cap = new QpCap(sendWr, srq == null ? Math.max(1, c.maxRecvWr()) : 0, sendSge, srq == null ? recvSge : 0,
                c.maxInlineData());
        this.signalAll = attr.signalAll();
        this.context = attr.context();
        this.sq = new SendQueue(cap.maxSendWr(), cap.maxSendSge(), cap.maxInlineData(), Arena.ofAuto());
        this.rq = srq == null ? new RecvQueue(cap.maxRecvWr(), cap.maxRecvSge()) : null;
        int n = device.registerQueuePair(this);
        if (n < 0) {
            throw new RdmaException("ibv_create_qp", Errno.ENOMEM, "the device's QP table is full");
        }
        this.qpn = n;
        this.sender = new Sender(this, device.timers(), device.workQueue(),
                device.config().retryCountSevenIsInfinite());
        this.responder = new Responder(this, device.workQueue());
        this.posting = new SendPosting(this, device, pd, type, cap, sq, sender);
        this.multicast = new QpMulticast(this, device, type, modifyLock);
        sendCq.attach(this);
        recvCq.attach(this);
        if (srq != null) {
            srq.addUser();
        }
        pd.addChild();
        device.tracker().opened(this);
    }

    // ---- SPI --------------------------------------------------------------------------------------------

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public CompletionQueue sendCq() {
        return sendCq;
    }

    @Override
    public CompletionQueue recvCq() {
        return recvCq;
    }

    @Override
    public SharedReceiveQueue srq() {
        return srq;
    }

    @Override
    public QpCap cap() {
        return cap;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    @Override
    public QpState state() {
        return QpState.ofCode(states.code());
    }

    @Override
    public void postSend(SendBatch batch, int count) {
        requireOpen();
        posting.postSend(batch, count);
    }

    /**
     * All or none, for {@link WrBatch#complete()}: refuses the whole chain (failed index 0, nothing posted) when the
     * send queue lacks room for it or any WR is invalid, checking each by filling a spare WQE, then posts it. Room
     * only grows meanwhile (this thread is the only producer), so the post that follows takes every WR.
     */
    @Override
    public void postSendAll(SendBatch batch, int count) {
        requireOpen();
        posting.postSendAll(batch, count);
    }

    @Override
    public WrBatch wrBatch() {
        if (wrBatch == null) {
            wrBatch = WrBatch.allocate(this, Arena.ofAuto());
        }
        return wrBatch;
    }

    @Override
    public int bindMemoryWindow(dev.ibex.cm.spi.MemoryWindow window, long wrId, int sendFlags,
            dev.ibex.cm.spi.MemoryRegion region, long addr, long length, int access) {
        requireOpen();
        if (!(window instanceof SoftMemoryWindow mw) || window.type() != dev.ibex.cm.spi.MemoryWindow.Type.TYPE_1) {
            throw new RdmaException("ibv_bind_mw", Errno.EINVAL, "ibv_bind_mw binds type 1 windows of this device;"
                    + " bind type 2 windows with a BIND_MW work request");
        }
        if (region == null ? addr != 0 || length != 0 : !(region instanceof SoftMemoryRegion)) {
            throw new RdmaException("ibv_bind_mw", Errno.EINVAL, "unbinding takes no region, address or length;"
                    + " binding takes a region of this device");
        }
        if (mw.softPd() != pd || (region != null && ((SoftMemoryRegion) region).softPd() != pd)) {
            throw new RdmaException("ibv_bind_mw", Errno.EPERM, "the window, the region and the QP must share a PD");
        }
        if (type != QpType.RC) {
            throw new RdmaException("ibv_bind_mw", Errno.EINVAL, "memory windows are bound on RC QPs");
        }
        int s = states.code();
        if (s != QpState.RTS.ordinal() && s != QpState.SQD.ordinal()) {
            throw new RdmaException("ibv_bind_mw", Errno.EINVAL, "the QP is in " + QpState.ofCode(s)
                    + "; binds are posted from RTS on");
        }
        SendWqe w = sq.claim();
        if (w == null) {
            throw new RdmaException("ibv_bind_mw", Errno.ENOMEM, "the send queue is full");
        }
        int rkey = dev.ibex.cm.spi.MemoryWindow.nextRkey(mw.rkey());
        posting.bind(w, wrId, sendFlags, mw, (SoftMemoryRegion) region, rkey, addr, length, access);
        sq.publish();
        sender.kick();
        return rkey;
    }

    @Override
    public void postRecv(RecvBatch batch, int count) {
        requireOpen();
        if (srq != null) {
            throw new PostException("ibv_post_recv", Errno.EINVAL.number(), 0,
                    "the QP takes its receives from an SRQ: post them to the SRQ");
        }
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        int s = states.code();
        if (s == QpState.RESET.ordinal()) {
            throw new PostException("ibv_post_recv", Errno.EINVAL.number(), 0,
                    "the QP is in RESET; receives can be posted from INIT on");
        }
        for (int i = 0; i < count; i++) {
            int n = batch.numSge(i);
            if (n < 0 || n > cap.maxRecvSge()) {
                throw new PostException("ibv_post_recv", Errno.EINVAL.number(), i,
                        "the WR has " + n + " scatter entries, the QP allows " + cap.maxRecvSge());
            }
            if (!rq.offer(batch, i, n)) {
                throw new PostException("ibv_post_recv", Errno.ENOMEM.number(), i,
                        "the receive queue is full (" + cap.maxRecvWr() + " WRs)");
            }
        }
        if (s == QpState.ERR.ordinal()) {
            responder.kick();
        }
    }

    /** UD: datagrams that reached this QP and were dropped instead of completing a receive (see the SPI). */
    @Override
    public long receiveDrops() {
        return receiveDrops.get();
    }

    /** The responder dropped {@code n} datagrams of this QP (its task only). */
    public void countReceiveDrops(int n) {
        receiveDrops.addAndGet(n);
    }

    @Override
    public void attachMulticast(Gid gid, int lid) {
        requireOpen();
        multicast.attach(gid);
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        requireOpen();
        multicast.detach(gid);
    }

    // ---- modify / query ---------------------------------------------------------------------------------

    @Override
    public void modify(QpAttr attr) {
        requireOpen();
        states.modify(attr);
    }

    @Override
    public QpAttr query(int mask) {
        requireOpen();
        int s = states.code();
        // the live values, as rxe's query reports req.psn and resp.psn: what the last modify set is history
        int rqPsn = s >= QpState.RTR.ordinal() && s <= QpState.SQD.ordinal() ? responder.expectedPsn() : attrs.rqPsn;
        int sqPsn = s == QpState.RTS.ordinal() || s == QpState.SQD.ordinal() ? sender.nextPsn() : attrs.sqPsn;
        return attrs.report(QpState.ofCode(s), paths.current(), rqPsn, sqPsn, cap, states.sqDraining());
    }

    // ---- transport-facing -------------------------------------------------------------------------------

    /** Moves the QP to ERR because the transport failed (or a CQ overran); both tasks then flush. Any thread. */
    public void error() {
        states.error();
    }

    /** Its CQ overran: QP_FATAL and ERR. */
    void fatal() {
        int s = states.code();
        if (s != QpState.RESET.ordinal() && s != QpState.ERR.ordinal()) {
            error();
            raise(AsyncEventType.QP_FATAL);
        }
    }

    /** Raises an affiliated async event for this QP. */
    public void raise(AsyncEventType type) {
        device.events().raise(type, this);
    }

    /**
     * A packet for this QP arrived from {@code srcIp:srcPort} at {@code dstIp} (receive thread).
     *
     * @return false when it was dropped for not coming from the connection's path (counted by the caller)
     */
    public boolean deliver(RocePacket pkt, int srcIp, int srcPort, int dstIp) {
        Opcode op = pkt.opcode();
        int s = states.code();
        if (type == QpType.UD) {
            if (op.transport() != Opcode.Transport.UD || s < QpState.RTR.ordinal() || s > QpState.SQD.ordinal()) {
                receiveDrops.incrementAndGet();
                return true;
            }
            responder.onRequest(pkt, srcIp, dstIp);
            return true;
        }
        if (op.transport() != Opcode.Transport.RC) {
            return true;
        }
        if (!paths.accept(srcIp, srcPort, dstIp, pkt.migReq())) {
            return false; // neither this QP's primary path nor (migrating) its alternate: dropped, as rdmavt does
        }
        if (op.isRequest()) {
            if (s >= QpState.RTR.ordinal() && s <= QpState.SQD.ordinal()) {
                responder.onRequest(pkt, srcIp, dstIp);
            }
        } else if (s == QpState.RTS.ordinal() || s == QpState.SQD.ordinal()) {
            sender.onResponse(pkt);
        }
        return true;
    }


    /** A WQE for SRQ receives, owned by a responder. */
    public static RecvWqe newScratchRecvWqe(int maxSge) {
        return new RecvWqe(maxSge);
    }

    /** Clears the draining flag once; whether SQ_DRAINED should be raised. Send task only. */
    public boolean markDrained() {
        return states.markDrained();
    }

    public SoftDevice device() {
        return device;
    }

    public SoftProtectionDomain softPd() {
        return pd;
    }

    public SoftCompletionQueue sendCqSoft() {
        return sendCq;
    }

    public SoftCompletionQueue recvCqSoft() {
        return recvCq;
    }

    public SoftSharedReceiveQueue softSrq() {
        return srq;
    }

    public SendQueue sq() {
        return sq;
    }

    public RecvQueue rq() {
        return rq;
    }

    public boolean signalAll() {
        return signalAll;
    }

    public int stateCode() {
        return states.code();
    }

    public int accessFlags() {
        return attrs.accessFlags;
    }

    public int qkey() {
        return attrs.qkey;
    }

    /** The primary route (where RC packets go now). */
    public Route route() {
        return paths.current().route();
    }

    /** The paths and the migration state (APM). */
    public PathMigration paths() {
        return paths;
    }

    public int destQpn() {
        return attrs.destQpn;
    }

    public int mtuBytes() {
        return attrs.mtuBytes;
    }

    /** The local ACK timeout of the primary path (IBA time value; 0 = none). */
    public int timeout() {
        return paths.current().primary().timeout();
    }

    public int retryCnt() {
        return attrs.retryCnt;
    }

    public int rnrRetry() {
        return attrs.rnrRetry;
    }

    public int minRnrTimer() {
        return attrs.minRnrTimer;
    }

    public int maxRdAtomic() {
        return attrs.maxRdAtomic;
    }

    public boolean sqDraining() {
        return states.sqDraining();
    }

    // ---- close ------------------------------------------------------------------------------------------

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("queue pair 0x" + Integer.toHexString(qpn) + " is closed");
        }
    }

    /** {@code ibv_destroy_qp}: outstanding WRs are discarded without completions, as in verbs. */
    @Override
    public void close() {
        synchronized (modifyLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        device.unregisterQueuePair(this);
        multicast.detachAll();
        sender.task().runExclusive(() -> responder.task().runExclusive(() -> {
            states.destroyed();
            sq.clear();
            if (rq != null) {
                rq.clear();
            }
            sender.stop();
        }));
        sendCq.detach(this);
        recvCq.detach(this);
        if (srq != null) {
            srq.removeUser();
        }
        pd.removeChild();
        device.events().purge(this);
        device.tracker().closed(this);
    }

    /** One of this QP's counters (a racy snapshot), for its device's totals. */
    public long count(QpCounter c) {
        Sender s = sender;
        Responder r = responder;
        if (s == null || r == null) {
            return 0; // still being built: the table publishes the QP before its constructor ends (its number)
        }
        return switch (c) {
            case RETRANSMISSIONS -> s.retries();
            case RETRANSMIT_TIMEOUTS -> s.timeouts();
            case RETRANSMIT_TIMEOUTS_PUT_OFF -> s.timeoutsPutOff();
            case RNR_NAKS_RECEIVED -> s.rnrNaksReceived();
            case RNR_NAKS_SENT -> r.rnrNaksSent();
            case OUT_OF_SEQUENCE -> r.outOfSequence();
            case DUPLICATES -> r.duplicates();
            case INVALID_RESPONSES -> s.invalidResponses();
            case PATH_MIGRATIONS -> paths.migrations();
            case DATAGRAM_DROPS -> receiveDrops.get();
        };
    }

    /** How many go-back-N retries the send side made (diagnostics and tests). */
    public long retries() {
        return sender.retries();
    }

    /** Responses this QP dropped for a PSN ahead of every request it sent (racy snapshot). */
    public long invalidResponses() {
        return sender.invalidResponses();
    }

    /** UD: datagrams this QP dropped on arrival, by reason (racy snapshot; always zero on RC). */
    public DatagramDrops datagramDrops() {
        return responder.datagramDrops();
    }

    /** Transport state for diagnostics (racy snapshot). */
    public String describe() {
        return this + " " + paths + " " + sender.describe() + " " + responder.describe() + " deviceDrops="
                + device.dropCounts();
    }

    @Override
    public String toString() {
        return "SoftQueuePair[" + type + " 0x" + Integer.toHexString(qpn) + " " + state() + "]";
    }

    /** The send side, for {@link QpStateMachine}: a modify holds its task and resets it, an error schedules it. */
    Sender sender() {
        return sender;
    }

    /** The receive side, for {@link QpStateMachine}: as {@link #sender()}. */
    Responder responder() {
        return responder;
    }

    /** Whether the requester made its own packet buffer (for tests: its packets are built in the thread's batch). */
    boolean requesterOwnsPacketBuffer() {
        return sender.requester.ownsPacketBuffer();
    }
}
