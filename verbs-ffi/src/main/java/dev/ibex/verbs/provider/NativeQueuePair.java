package dev.ibex.verbs.provider;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.verbs.ffi.ContextOps;
import dev.ibex.verbs.ffi.CallState;
import dev.ibex.verbs.ffi.MemoryWindows;
import dev.ibex.verbs.ffi.Multicast;
import dev.ibex.verbs.ffi.QpExOps;
import dev.ibex.verbs.ffi.QueuePairs;
import dev.ibex.verbs.ffi.constant.IbvQpInitAttrMask;
import dev.ibex.verbs.ffi.RdmaErrors;
import dev.ibex.verbs.ffi.struct.IbvMwBind;
import dev.ibex.verbs.ffi.struct.IbvMwBindInfo;
import dev.ibex.verbs.ffi.RdmaCm;
import dev.ibex.verbs.ffi.struct.IbvGid;
import dev.ibex.verbs.ffi.struct.IbvQp;
import dev.ibex.verbs.ffi.struct.IbvQpAttr;
import dev.ibex.verbs.ffi.struct.IbvQpInitAttr;
import dev.ibex.verbs.ffi.struct.IbvQpInitAttrEx;
import dev.ibex.verbs.ffi.struct.RdmaCmId;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code struct ibv_qp}, created with {@code ibv_create_qp} (the caller drives the state machine with
 * {@link #modify}) or with {@code rdma_create_qp} on a CM id (the CM drives it). Its {@code qp_context} is this
 * object's handle, which is how async events find it. Posting goes straight to the provider library through the
 * context's function pointers ({@link BatchPosting}); a refused WR raises a
 * {@link dev.ibex.cm.spi.PostException} with its index.
 */
final class NativeQueuePair extends NativeResource implements QueuePair {
    private final NativeProtectionDomain pd;
    private final NativeCompletionQueue sendCq;
    private final NativeCompletionQueue recvCq;
    private final NativeSharedReceiveQueue srq;
    private final QpType type;
    private final NativeCmId cmId;
    private final long handle;
    private final ContextOps ops;
    /** Leased from the fabric, not automatic (an automatic arena's memory can make each post allocate), not a
     *  shared arena of its own (closing one is a handshake with every thread): recycled when this is destroyed. */
    private final ScratchPool.Lease scratch;
    private final MemorySegment badWr;
    private MemorySegment qp;
    private QpCap cap;
    private int qpNum;
    private volatile Object context;
    private final List<Attachment> attachments = new CopyOnWriteArrayList<>();
    /** Set when the QP was made by {@code ibv_create_qp_ex} with send-ops flags: {@link #postSendAll} uses it. */
    private ExtendedPosting extended;

    private NativeQueuePair(NativeProtectionDomain pd, QpInitAttr attr, NativeCmId cmId) {
        super(pd.fabric);
        this.pd = pd;
        this.scratch = pd.fabric.scratch().lease();
        this.badWr = scratch.allocate(8, 8);
        this.sendCq = cq(attr.sendCq(), pd, "send");
        this.recvCq = cq(attr.recvCq(), pd, "receive");
        this.srq = srq(attr.srq(), pd);
        this.type = attr.type();
        this.cmId = cmId;
        this.context = attr.context();
        this.ops = pd.deviceContext().ops();
        this.handle = fabric.handles().register(this);
    }

    /** {@code ibv_create_qp}: a QP in RESET. */
    static NativeQueuePair create(NativeProtectionDomain pd, QpInitAttr attr) {
        NativeQueuePair q = new NativeQueuePair(pd, attr, null);
        q.createNative(attr);
        return q;
    }

    /** {@code rdma_create_qp} on {@code id}: the CM moves it through its states. */
    static NativeQueuePair createOnId(NativeCmId id, NativeProtectionDomain pd, QpInitAttr attr) {
        NativeQueuePair q = new NativeQueuePair(pd, attr, id);
        q.createNative(attr);
        return q;
    }

    private void createNative(QpInitAttr attr) {
        try {
            // this thread's struct scratch, not an arena per QP; nothing below uses it before cap is read back
            MemorySegment init = CallState.current().structs().allocate(IbvQpInitAttrEx.LAYOUT);
            fill(init, attr);
            if (!createEx(init)) {
                init.fill((byte) 0);
                fill(init, attr);
                if (cmId == null) {
                    qp = QueuePairs.createQp(pd.segment(), init);
                } else {
                    RdmaCm.createQp(cmId.segment(), pd.segment(), init);
                    qp = RdmaCmId.qp(cmId.segment());
                }
            }
            cap = QpAttrCodec.readCap(IbvQpInitAttr.cap(init));
        } catch (RuntimeException e) {
            fabric.handles().release(handle);
            scratch.close();
            throw e;
        }
        qp = qp.reinterpret(IbvQp.SIZE);
        qpNum = IbvQp.qpNum(qp);
        tracked();
    }

    /** The {@code struct ibv_qp_init_attr} part ({@code ibv_qp_init_attr_ex} begins with it). */
    private void fill(MemorySegment init, QpInitAttr attr) {
        IbvQpInitAttr.qpContext(init, MemorySegment.ofAddress(handle));
        IbvQpInitAttr.sendCq(init, sendCq.segment());
        IbvQpInitAttr.recvCq(init, recvCq.segment());
        IbvQpInitAttr.srq(init, srq == null ? MemorySegment.NULL : srq.segment());
        QpAttrCodec.writeCap(attr.cap(), IbvQpInitAttr.cap(init));
        IbvQpInitAttr.qpType(init, type.code());
        IbvQpInitAttr.sqSigAll(init, attr.signalAll() ? 1 : 0);
    }

    /**
     * {@code ibv_create_qp_ex} / {@code rdma_create_qp_ex} with the send-ops flags of every operation the QP type
     * has, so that {@link #postSendAll} can post a batch through {@code ibv_qp_ex} (all or nothing). A device that
     * refuses (no extended op, or flags it cannot do) gets a QP made the ordinary way instead: false.
     */
    private boolean createEx(MemorySegment init) {
        long ops = ExtendedPosting.sendOpsFlags(type);
        if (ops == 0) {
            return false;
        }
        IbvQpInitAttrEx.compMask(init, IbvQpInitAttrMask.IBV_QP_INIT_ATTR_PD
                | IbvQpInitAttrMask.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
        IbvQpInitAttrEx.pd(init, pd.segment());
        IbvQpInitAttrEx.sendOpsFlags(init, ops);
        try {
            if (cmId == null) {
                qp = QueuePairs.createQpEx(pd.deviceContext().segment(), init);
            } else {
                RdmaCm.createQpEx(cmId.segment(), init);
                qp = RdmaCmId.qp(cmId.segment());
            }
        } catch (RdmaException refused) {
            return false;
        }
        QpExOps x = QpExOps.of(QueuePairs.qpToQpEx(qp));
        extended = x == null ? null : new ExtendedPosting(x, type, IbvQpInitAttr.maxSendSge(init), scratch);
        return true;
    }

    private static NativeCompletionQueue cq(CompletionQueue cq, NativeProtectionDomain pd, String which) {
        if (!(cq instanceof NativeCompletionQueue n) || n.fabric != pd.fabric) {
            throw new IllegalArgumentException("the " + which + " CQ belongs to another provider or fabric");
        }
        if (n.device() != pd.deviceContext()) {
            throw new IllegalArgumentException("the " + which + " CQ is on another device than the PD");
        }
        n.ensureOpen();
        return n;
    }

    private static NativeSharedReceiveQueue srq(SharedReceiveQueue srq, NativeProtectionDomain pd) {
        if (srq == null) {
            return null;
        }
        if (!(srq instanceof NativeSharedReceiveQueue n) || n.fabric != pd.fabric) {
            throw new IllegalArgumentException("the SRQ belongs to another provider or fabric");
        }
        n.ensureOpen();
        return n;
    }

    MemorySegment segment() {
        return qp;
    }

    @Override
    public int bindMemoryWindow(dev.ibex.cm.spi.MemoryWindow window, long wrId, int sendFlags,
            dev.ibex.cm.spi.MemoryRegion region, long addr, long length, int access) {
        ensureOpen();
        if (!(window instanceof NativeMemoryWindow mw) || mw.fabric != fabric) {
            throw new IllegalArgumentException("the window belongs to another provider or fabric");
        }
        if (region != null && (!(region instanceof NativeMemoryRegion r) || r.fabric != fabric)) {
            throw new IllegalArgumentException("the region belongs to another provider or fabric");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment bind = a.allocate(IbvMwBind.LAYOUT);
            IbvMwBind.wrId(bind, wrId);
            IbvMwBind.sendFlags(bind, sendFlags);
            MemorySegment info = IbvMwBind.bindInfo(bind);
            IbvMwBindInfo.mr(info, region == null ? MemorySegment.NULL : ((NativeMemoryRegion) region).nativeSegment());
            IbvMwBindInfo.addr(info, addr);
            IbvMwBindInfo.length(info, length);
            IbvMwBindInfo.mwAccessFlags(info, access);
            int rc = MemoryWindows.bindMw(qp, mw.segment(), bind);
            if (rc != 0) {
                throw RdmaErrors.failure("ibv_bind_mw", rc);
            }
        }
        return mw.rkey();
    }

    @Override
    String describe() {
        return type + " QP 0x" + Integer.toHexString(qpNum);
    }

    @Override
    public int qpNum() {
        return qpNum;
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

    /** Made on first use, in {@link #scratch}: freed with the QP. */
    private WrBatch wrBatch;

    @Override
    public WrBatch wrBatch() {
        if (wrBatch == null) {
            wrBatch = WrBatch.allocate(this, scratch);
        }
        return wrBatch;
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
    public void modify(QpAttr attr) {
        ensureOpen();
        if (attr == null) {
            throw new IllegalArgumentException("attr is required");
        }
        MemorySegment a = CallState.current().structs().allocate(IbvQpAttr.LAYOUT);
        QpAttrCodec.write(attr, a);
        QueuePairs.modifyQp(qp, a, attr.mask());
    }

    @Override
    public QpAttr query(int mask) {
        ensureOpen();
        SegmentAllocator structs = CallState.current().structs();
        MemorySegment a = structs.allocate(IbvQpAttr.LAYOUT);
        MemorySegment init = structs.allocate(IbvQpInitAttr.LAYOUT);
        QueuePairs.queryQp(qp, a, mask, init);
        return QpAttrCodec.read(a, mask);
    }

    @Override
    public void postSend(SendBatch batch, int count) {
        ensureOpen();
        checkInline(batch, count);
        BatchPosting.postSend(ops, qp, batch, count, badWr);
    }

    /**
     * The provider copies inline data with {@code memcpy} from whatever address the SGE names (its lkey is
     * ignored): an address outside registered memory would crash the JVM. Refused here, as EINVAL for that WR.
     */
    private void checkInline(SendBatch batch, int count) {
        for (int i = 0; i < count; i++) {
            if ((batch.flags(i) & SendFlags.INLINE) == 0) {
                continue;
            }
            for (int j = 0, n = batch.numSge(i); j < n; j++) {
                long addr = batch.sgeAddr(i, j);
                int len = batch.sgeLength(i, j);
                if (len != 0 && !pd.registered.contains(addr, Integer.toUnsignedLong(len))) {
                    throw new PostException("ibv_post_send", Errno.EINVAL.number(), i, "inline data at 0x"
                            + Long.toHexString(addr) + " (" + Integer.toUnsignedString(len) + " bytes) is not in "
                            + "memory registered on this protection domain; inline SGEs must name registered memory");
                }
            }
        }
    }

    /**
     * All or nothing through {@code ibv_qp_ex} when the QP was made with send-ops flags and has the builders of every
     * WR ({@link ExtendedPosting}); otherwise {@code ibv_post_send}, which can post a prefix.
     */
    @Override
    public void postSendAll(SendBatch batch, int count) {
        ensureOpen();
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        if (extended == null || !extended.handles(batch, count)) {
            postSend(batch, count);
            return;
        }
        checkInline(batch, count);
        extended.post(batch, count);
    }

    /** {@return whether batches go through {@code ibv_qp_ex} ({@code ibv_wr_start} … {@code ibv_wr_complete})} */
    boolean extendedPosting() {
        return extended != null;
    }

    @Override
    public void postRecv(RecvBatch batch, int count) {
        ensureOpen();
        if (srq != null) {
            // what ibv_post_recv answers for such a QP, said before the call
            throw new PostException("ibv_post_recv", Errno.EINVAL.number(), 0,
                    "the QP takes its receives from an SRQ: post them to the SRQ");
        }
        BatchPosting.postRecv(ops, qp, batch, count, badWr);
    }

    @Override
    public void attachMulticast(Gid gid, int lid) {
        ensureOpen();
        mcast(gid, lid, true);
    }

    @Override
    public void detachMulticast(Gid gid, int lid) {
        ensureOpen();
        mcast(gid, lid, false);
    }

    /** A group attached with {@link #attachMulticast} (not through the CM), detached again before the destroy. */
    private record Attachment(Gid gid, int lid) {}

    private void mcast(Gid gid, int lid, boolean attach) {
        if (gid == null) {
            throw new IllegalArgumentException("gid is required");
        }
        if (type != QpType.UD) {
            throw new IllegalStateException("only UD QPs join multicast groups, this is " + describe());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment g = arena.allocate(IbvGid.LAYOUT);
            IbvGid.raw(g, gid.raw());
            if (attach) {
                Multicast.attachMcast(qp, g, lid);
                attachments.add(new Attachment(gid, lid));
            } else {
                Multicast.detachMcast(qp, g, lid);
                attachments.remove(new Attachment(gid, lid));
            }
        }
    }

    @Override
    void destroy() {
        // a QP attached to a multicast group cannot be destroyed (EBUSY): leave and detach first
        if (cmId != null) {
            cmId.leaveAll();
        }
        for (Attachment a : List.copyOf(attachments)) {
            mcast(a.gid(), a.lid(), false);
        }
        // not rdma_destroy_qp: it ignores a failing ibv_destroy_qp and forgets the QP, which would leak it silently.
        // With caller-supplied CQs (always the case here) it does nothing else.
        QueuePairs.destroyQp(qp);
        if (cmId != null) {
            cmId.segment().set(ValueLayout.ADDRESS, RdmaCmId.OFFSET_QP, MemorySegment.NULL);
            cmId.qpDestroyed(this);
        }
        fabric.handles().release(handle);
        scratch.close();
    }
}
