package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.verbs.ffi.SharedReceiveQueues;
import dev.ibex.verbs.ffi.struct.IbvSrqAttr;
import dev.ibex.verbs.ffi.struct.IbvSrqInitAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_srq}, whose {@code srq_context} is this object's handle (so SRQ_LIMIT_REACHED and SRQ_ERR
 * find it). A limit given at creation is armed right after {@code ibv_create_srq} (which ignores it).
 */
final class NativeSharedReceiveQueue extends NativeResource implements SharedReceiveQueue {
    private final NativeProtectionDomain pd;
    private final long handle;
    private final MemorySegment srq;
    private final ScratchPool.Lease scratch;
    private final MemorySegment badWr;
    private volatile Object context;

    NativeSharedReceiveQueue(NativeProtectionDomain pd, int maxWr, int maxSge, int srqLimit) {
        super(pd.fabric);
        this.pd = pd;
        this.scratch = pd.fabric.scratch().lease();
        this.badWr = scratch.allocate(8, 8);
        this.handle = fabric.handles().register(this);
        MemorySegment created;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment init = arena.allocate(IbvSrqInitAttr.LAYOUT);
            IbvSrqInitAttr.srqContext(init, MemorySegment.ofAddress(handle));
            IbvSrqInitAttr.maxWr(init, maxWr);
            IbvSrqInitAttr.maxSge(init, maxSge);
            created = SharedReceiveQueues.createSrq(pd.segment(), init);
        } catch (RuntimeException e) {
            fabric.handles().release(handle);
            scratch.close();
            throw e;
        }
        this.srq = created;
        tracked();
        if (srqLimit > 0) {
            try {
                modify(0, srqLimit, LIMIT);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    MemorySegment segment() {
        return srq;
    }

    @Override
    String describe() {
        return "SRQ";
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
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
    public void postRecv(RecvBatch batch, int count) {
        ensureOpen();
        BatchPosting.postSrqRecv(pd.deviceContext().ops(), srq, batch, count, badWr);
    }

    @Override
    public void modify(int maxWr, int srqLimit, int mask) {
        ensureOpen();
        if ((mask & ~(MAX_WR | LIMIT)) != 0 || mask == 0) {
            throw new IllegalArgumentException("mask must combine MAX_WR and LIMIT, got " + mask);
        }
        if (maxWr < 0 || srqLimit < 0) {
            throw new IllegalArgumentException("maxWr and srqLimit must not be negative");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvSrqAttr.LAYOUT);
            IbvSrqAttr.maxWr(a, maxWr);
            IbvSrqAttr.srqLimit(a, srqLimit);
            SharedReceiveQueues.modifySrq(srq, a, mask);
        }
    }

    @Override
    public SrqAttr query() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvSrqAttr.LAYOUT);
            SharedReceiveQueues.querySrq(srq, a);
            return new SrqAttr(IbvSrqAttr.maxWr(a), IbvSrqAttr.maxSge(a), IbvSrqAttr.srqLimit(a));
        }
    }

    @Override
    void destroy() {
        SharedReceiveQueues.destroySrq(srq);
        fabric.handles().release(handle);
        scratch.close();
    }
}
