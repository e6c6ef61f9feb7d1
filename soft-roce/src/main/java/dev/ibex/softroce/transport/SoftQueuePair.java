package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
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
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code ibv_qp} for RC and UD. Posting copies WRs into preallocated WQE rings and kicks the QP's send task, which
 * normally runs the requester right away on the posting thread; packets that arrive are handed to the responder or
 * the completer on the receive thread (see {@link Sender} and {@link Responder}).
 *
 * <p>{@link #modify} checks the transition and its attribute mask against {@link QpTransitions} and the values
 * against the device, then applies everything while neither task runs: an invalid modify throws
 * {@link RdmaException} EINVAL and changes nothing.
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
    private final AtomicInteger state = new AtomicInteger(QpState.RESET.ordinal());
    private final Sender sender;
    private final Responder responder;
    private final Object modifyLock = new Object();
    /** Multicast groups this QP is attached to (under modifyLock). */
    private final java.util.List<Integer> attachedGroups = new java.util.ArrayList<>(1);
    /** UD datagrams dropped on arrival (receive threads and the receive task). */
    private final AtomicLong receiveDrops = new AtomicLong();
    private volatile Object context;
    private volatile boolean closed;

    // attributes, written by modify while both tasks are held, read by the tasks
    private volatile int accessFlags;
    private volatile int qkey;
    /** Primary and alternate path, port, P_Key index, ACK timeout and the APM state. */
    private final PathMigration paths = new PathMigration(this);
    /** Posting thread only: the spare WQE {@link #postSendAll} checks a chain with, made on first use. */
    private SendWqe probe;
    /** Posting thread only: the QP's extended-posting builder, made on first use. */
    private WrBatch wrBatch;
    private volatile Mtu pathMtu = Mtu.MTU_1024;
    private volatile int mtuBytes = 1024;
    private volatile int destQpn;
    private volatile int rqPsn;
    private volatile int sqPsn;
    private volatile int retryCnt;
    private volatile int rnrRetry;
    private volatile int minRnrTimer;
    private volatile int maxRdAtomic;
    private volatile int maxDestRdAtomic;
    private volatile boolean enSqdAsyncNotify;
    private volatile boolean sqDraining;

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
        return QpState.ofCode(state.get());
    }

    @Override
    public void postSend(SendBatch batch, int count) {
        requireOpen();
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        int s = state.get();
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
     * All or none, for {@link WrBatch#complete()}: refuses the whole chain (failed index 0, nothing posted) when the
     * send queue lacks room for it or any WR is invalid, checking each by filling a spare WQE, then posts it. Room
     * only grows meanwhile (this thread is the only producer), so the post that follows takes every WR.
     */
    @Override
    public void postSendAll(SendBatch batch, int count) {
        requireOpen();
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
        postSend(batch, count);
    }

    @Override
    public WrBatch wrBatch() {
        if (wrBatch == null) {
            wrBatch = WrBatch.allocate(this, Arena.ofAuto());
        }
        return wrBatch;
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
        int s = state.get();
        if (s != QpState.RTS.ordinal() && s != QpState.SQD.ordinal()) {
            throw new RdmaException("ibv_bind_mw", Errno.EINVAL, "the QP is in " + QpState.ofCode(s)
                    + "; binds are posted from RTS on");
        }
        SendWqe w = sq.claim();
        if (w == null) {
            throw new RdmaException("ibv_bind_mw", Errno.ENOMEM, "the send queue is full");
        }
        int rkey = dev.ibex.cm.spi.MemoryWindow.nextRkey(mw.rkey());
        w.wrId = wrId;
        w.opcode = WrOpcode.BIND_MW;
        w.flags = sendFlags & ~SendFlags.INLINE;
        w.imm = 0;
        w.ah = null;
        w.numSge = 0;
        w.length = 0;
        w.remoteAddr = 0;
        w.mw = mw;
        w.bindMr = (SoftMemoryRegion) region;
        w.rkey = rkey;
        w.bindAddr = addr;
        w.bindLength = length;
        w.bindAccess = access;
        w.state = SendWqe.POSTED;
        w.status = 0;
        w.hasRdAtomic = false;
        w.rewind();
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
        int s = state.get();
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
        int group = multicastGroup(gid, "ibv_attach_mcast");
        synchronized (modifyLock) {
            device.attachMulticast(group, this);
            if (!attachedGroups.contains(group)) {
                attachedGroups.add(group);
            }
        }
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        requireOpen();
        int group = multicastGroup(gid, "ibv_detach_mcast");
        synchronized (modifyLock) {
            if (!device.detachMulticast(group, this)) {
                throw new RdmaException("ibv_detach_mcast", Errno.EINVAL, "the QP is not attached to " + gid);
            }
            attachedGroups.remove(Integer.valueOf(group));
        }
    }

    /** The IPv4 group of a RoCEv2 MGID ({@code ::ffff:G}); EINVAL otherwise or for a QP that is not UD. */
    private int multicastGroup(Gid gid, String verb) {
        if (type != QpType.UD) {
            throw new RdmaException(verb, Errno.EINVAL, "only UD QPs can be attached to multicast groups");
        }
        if (gid == null || !isMulticast(gid)) {
            throw new RdmaException(verb, Errno.EINVAL, "the soft device's multicast GIDs are IPv4-mapped"
                    + " multicast addresses (::ffff:224.0.0.0/4), not " + gid);
        }
        return (gid.byteAt(12) & 0xFF) << 24 | (gid.byteAt(13) & 0xFF) << 16 | (gid.byteAt(14) & 0xFF) << 8
                | (gid.byteAt(15) & 0xFF);
    }

    // ---- modify / query ---------------------------------------------------------------------------------

    @Override
    public void modify(QpAttr attr) {
        requireOpen();
        synchronized (modifyLock) {
            QpState cur = QpState.ofCode(state.get());
            int mask = attr.mask();
            QpState next = attr.has(QpAttr.STATE) ? attr.state() : cur;
            if (attr.has(QpAttr.CUR_STATE) && attr.curState() != cur) {
                throw einval("cur_qp_state is " + attr.curState() + " but the QP is in " + cur);
            }
            if (!QpTransitions.isValid(type, cur, next, mask)) {
                throw einval(QpTransitions.explain(type, cur, next, mask));
            }
            checkValues(attr);
            Route newRoute = attr.has(QpAttr.AV) ? device.resolve(attr.ahAttr(), "ibv_modify_qp") : null;
            Route newAlt = attr.has(QpAttr.ALT_PATH) ? device.resolve(attr.altAhAttr(), "ibv_modify_qp") : null;
            String why = PathMigration.check(paths.current(), attr, next);
            if (why != null) {
                throw einval(why);
            }
            RuntimeException[] failure = new RuntimeException[1];
            sender.task().runExclusive(() -> responder.task().runExclusive(() -> {
                if (!state.compareAndSet(cur.ordinal(), next.ordinal())) {
                    failure[0] = einval("the QP changed state concurrently (now " + state() + ")");
                    return;
                }
                String raced = paths.apply(attr, next, newRoute, newAlt);
                if (raced != null) { // a packet changed the migration state since the check above
                    state.compareAndSet(next.ordinal(), cur.ordinal());
                    failure[0] = einval(raced);
                    return;
                }
                apply(attr, cur, next);
            }));
            if (failure[0] != null) {
                throw failure[0];
            }
        }
    }

    private void checkValues(QpAttr a) {
        var dev = device.queryDevice();
        if (a.has(QpAttr.PORT) && (a.portNum() < 1 || a.portNum() > device.portCount())) {
            throw einval("port_num " + a.portNum() + ": " + device.name() + " has ports 1.." + device.portCount());
        }
        if (a.has(QpAttr.PKEY_INDEX) && a.pkeyIndex() != 0) {
            throw einval("pkey_index " + a.pkeyIndex() + ": the P_Key table has one entry (index 0)");
        }
        if (a.has(QpAttr.ACCESS_FLAGS) && (a.accessFlags() & ~0x1F) != 0) {
            throw einval("unsupported access flags 0x" + Integer.toHexString(a.accessFlags()));
        }
        if (a.has(QpAttr.PATH_MTU) && a.pathMtu().code() > device.queryPort(1).maxMtu().code()) {
            throw einval("path MTU " + a.pathMtu() + " exceeds the port's maximum");
        }
        if (a.has(QpAttr.TIMEOUT) && (a.timeout() < 0 || a.timeout() > 31)) {
            throw einval("timeout must be within 0..31, got " + a.timeout());
        }
        if (a.has(QpAttr.RETRY_CNT) && (a.retryCnt() < 0 || a.retryCnt() > 7)) {
            throw einval("retry_cnt must be within 0..7, got " + a.retryCnt());
        }
        if (a.has(QpAttr.RNR_RETRY) && (a.rnrRetry() < 0 || a.rnrRetry() > 7)) {
            throw einval("rnr_retry must be within 0..7, got " + a.rnrRetry());
        }
        if (a.has(QpAttr.MIN_RNR_TIMER) && (a.minRnrTimer() < 0 || a.minRnrTimer() > 31)) {
            throw einval("min_rnr_timer must be within 0..31, got " + a.minRnrTimer());
        }
        if (a.has(QpAttr.MAX_QP_RD_ATOMIC) && (a.maxRdAtomic() < 0 || a.maxRdAtomic() > dev.maxQpInitRdAtom())) {
            throw einval("max_rd_atomic must be within 0.." + dev.maxQpInitRdAtom() + ", got " + a.maxRdAtomic());
        }
        if (a.has(QpAttr.MAX_DEST_RD_ATOMIC) && (a.maxDestRdAtomic() < 0 || a.maxDestRdAtomic() > dev.maxQpRdAtom())) {
            throw einval("max_dest_rd_atomic must be within 0.." + dev.maxQpRdAtom() + ", got " + a.maxDestRdAtomic());
        }
        if (a.has(QpAttr.DEST_QPN) && (a.destQpNum() & ~0xFFFFFF) != 0) {
            throw einval("dest_qp_num must fit in 24 bits, got 0x" + Integer.toHexString(a.destQpNum()));
        }
        if (a.has(QpAttr.ALT_PATH)) {
            if (a.altPortNum() < 1 || a.altPortNum() > device.portCount()) {
                throw einval("alt_port_num " + a.altPortNum() + ": " + device.name() + " has ports 1.."
                        + device.portCount());
            }
            if (a.altAhAttr() == null || a.altAhAttr().portNum() != a.altPortNum()) {
                throw einval("alt_ah_attr must name the alternate port alt_port_num " + a.altPortNum());
            }
            if (a.altPkeyIndex() != 0) {
                throw einval("alt_pkey_index " + a.altPkeyIndex() + ": the P_Key table has one entry (index 0)");
            }
            if (a.altTimeout() < 0 || a.altTimeout() > 31) {
                throw einval("alt_timeout must be within 0..31, got " + a.altTimeout());
            }
        }
        if (a.has(QpAttr.AV) && type == QpType.RC && isMulticast(a.ahAttr().dgid())) {
            throw einval("an RC QP cannot be connected to a multicast address");
        }
    }

    private static boolean isMulticast(Gid gid) {
        return gid.isIpv4Mapped() && (gid.byteAt(12) & 0xF0) == 0xE0;
    }

    private static RdmaException einval(String why) {
        return new RdmaException("ibv_modify_qp", Errno.EINVAL, why);
    }

    /** Applies a validated modify (the paths are done); both tasks are held. */
    private void apply(QpAttr a, QpState cur, QpState next) {
        if (a.has(QpAttr.ACCESS_FLAGS)) {
            accessFlags = a.accessFlags();
        }
        if (a.has(QpAttr.QKEY)) {
            qkey = a.qkey();
        }
        if (a.has(QpAttr.PATH_MTU)) {
            pathMtu = a.pathMtu();
            mtuBytes = a.pathMtu().bytes();
        }
        if (a.has(QpAttr.DEST_QPN)) {
            destQpn = a.destQpNum();
        }
        if (a.has(QpAttr.RQ_PSN)) {
            rqPsn = a.rqPsn();
        }
        if (a.has(QpAttr.SQ_PSN)) {
            sqPsn = a.sqPsn();
        }
        if (a.has(QpAttr.RETRY_CNT)) {
            retryCnt = a.retryCnt();
        }
        if (a.has(QpAttr.RNR_RETRY)) {
            rnrRetry = a.rnrRetry();
        }
        if (a.has(QpAttr.MIN_RNR_TIMER)) {
            minRnrTimer = a.minRnrTimer();
        }
        if (a.has(QpAttr.MAX_QP_RD_ATOMIC)) {
            maxRdAtomic = a.maxRdAtomic();
        }
        if (a.has(QpAttr.MAX_DEST_RD_ATOMIC)) {
            maxDestRdAtomic = a.maxDestRdAtomic();
        }
        if (a.has(QpAttr.EN_SQD_ASYNC_NOTIFY)) {
            enSqdAsyncNotify = a.enSqdAsyncNotify();
        }
        switch (next) {
            case RESET -> {
                paths.reset();
                sq.clear();
                if (rq != null) {
                    rq.clear();
                }
                sender.reset(0);
                responder.reset(0, 0);
                sqDraining = false;
            }
            case RTR -> {
                if (cur == QpState.INIT) {
                    responder.reset(rqPsn, maxDestRdAtomic);
                }
            }
            case RTS -> {
                if (cur == QpState.RTR) {
                    sender.reset(sqPsn);
                } else {
                    sender.updateTimeout();
                }
                sqDraining = false;
            }
            case SQD -> {
                if (cur == QpState.RTS) {
                    sqDraining = true;
                }
                sender.updateTimeout();
            }
            default -> { }
        }
    }

    @Override
    public QpAttr query(int mask) {
        requireOpen();
        PathMigration.Paths p = paths.current();
        QpAttr a = new QpAttr()
                .state(state())
                .curState(state())
                .accessFlags(accessFlags)
                .pkeyIndex(p.primary().pkeyIndex())
                .portNum(p.primary().port())
                .qkey(qkey)
                .pathMtu(pathMtu)
                .destQpNum(destQpn)
                // the live values, as rxe's query reports req.psn and resp.psn: what the last modify set is history
                .rqPsn(state.get() >= QpState.RTR.ordinal() && state.get() <= QpState.SQD.ordinal()
                        ? responder.expectedPsn() : rqPsn)
                .sqPsn(state.get() == QpState.RTS.ordinal() || state.get() == QpState.SQD.ordinal()
                        ? sender.nextPsn() : sqPsn)
                .timeout(p.primary().timeout())
                .retryCnt(retryCnt)
                .rnrRetry(rnrRetry)
                .minRnrTimer(minRnrTimer)
                .maxRdAtomic(maxRdAtomic)
                .maxDestRdAtomic(maxDestRdAtomic)
                .pathMigState(p.state())
                .enSqdAsyncNotify(enSqdAsyncNotify)
                .cap(cap)
                .sqDraining(sqDraining);
        if (p.route() != null) {
            a.ahAttr(p.route().attr());
        }
        PathMigration.Path alt = p.alternate();
        if (alt != null) {
            a.altPath(alt.route().attr(), alt.port(), alt.timeout()).altPkeyIndex(alt.pkeyIndex());
        }
        return a;
    }

    // ---- transport-facing -------------------------------------------------------------------------------

    /** Moves the QP to ERR because the transport failed (or a CQ overran); both tasks then flush. Any thread. */
    public void error() {
        for (;;) {
            int s = state.get();
            if (s == QpState.ERR.ordinal() || s == QpState.RESET.ordinal()) {
                return;
            }
            if (state.compareAndSet(s, QpState.ERR.ordinal())) {
                break;
            }
        }
        // flushing happens on the work queue: this may run on a receive thread, inside one of the tasks
        device.workQueue().defer(sender.task());
        device.workQueue().defer(responder.task());
    }

    /** Its CQ overran: QP_FATAL and ERR. */
    void fatal() {
        int s = state.get();
        if (s != QpState.RESET.ordinal() && s != QpState.ERR.ordinal()) {
            error();
            raise(AsyncEventType.QP_FATAL);
        }
    }

    /** Raises an affiliated async event for this QP. */
    public void raise(AsyncEventType type) {
        device.events().raise(type, this);
    }

    /** Hands a packet addressed to this QP to the responder or completer (receive thread). */
    /**
     * A packet for this QP arrived from {@code srcIp:srcPort} at {@code dstIp} (receive thread).
     *
     * @return false when it was dropped for not coming from the connection's path (counted by the caller)
     */
    public boolean deliver(RocePacket pkt, int srcIp, int srcPort, int dstIp) {
        Opcode op = pkt.opcode();
        int s = state.get();
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
        if (!sqDraining) {
            return false;
        }
        sqDraining = false;
        return enSqdAsyncNotify;
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
        return state.get();
    }

    public int accessFlags() {
        return accessFlags;
    }

    public int qkey() {
        return qkey;
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
        return destQpn;
    }

    public int mtuBytes() {
        return mtuBytes;
    }

    /** The local ACK timeout of the primary path (IBA time value; 0 = none). */
    public int timeout() {
        return paths.current().primary().timeout();
    }

    public int retryCnt() {
        return retryCnt;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    public boolean sqDraining() {
        return sqDraining;
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
        synchronized (modifyLock) {
            for (int group : attachedGroups) {
                device.detachMulticast(group, this);
            }
            attachedGroups.clear();
        }
        sender.task().runExclusive(() -> responder.task().runExclusive(() -> {
            state.set(QpState.RESET.ordinal());
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
        return switch (c) {
            case RETRANSMISSIONS -> sender.retries();
            case RETRANSMIT_TIMEOUTS -> sender.timeouts();
            case RNR_NAKS_RECEIVED -> sender.rnrNaksReceived();
            case RNR_NAKS_SENT -> responder.rnrNaksSent();
            case OUT_OF_SEQUENCE -> responder.outOfSequence();
            case DUPLICATES -> responder.duplicates();
            case INVALID_RESPONSES -> sender.invalidResponses();
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
}
