package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.util.ArrayDeque;

/** A shared receive queue with the one-shot limit event. */
final class FakeSrq implements SharedReceiveQueue {
    private final FakePd pd;
    private final int maxWr;
    private final int maxSge;
    final ArrayDeque<FakeQp.Recv> queue = new ArrayDeque<>();
    private int limit;
    private Object context;
    int qps;
    private boolean closed;

    FakeSrq(FakePd pd, int maxWr, int maxSge) {
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        pd.device().fabric().tracker.opened(this);
    }

    private FakeFabric fabric() {
        return pd.device().fabric();
    }

    @Override public ProtectionDomain pd() { return pd; }
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }

    @Override
    public void postRecv(RecvBatch batch, int count) {
        FakeFabric f = fabric();
        synchronized (f.lock) {
            if (closed) {
                throw new IllegalStateException("SRQ is closed");
            }
            for (int i = 0; i < count; i++) {
                if (queue.size() >= maxWr) {
                    throw new PostException("ibv_post_srq_recv", Errno.ENOMEM.number(), i, "the SRQ is full");
                }
                queue.add(FakeQp.Recv.of(batch, i));
            }
            for (FakeQp qp : f.qps.values()) {
                if (qp.srq() == this) {
                    qp.peerResume();
                }
            }
        }
    }

    /** Takes a receive for an arriving message (lock held), raising the limit event when it drops below. */
    FakeQp.Recv take() {
        FakeQp.Recv r = queue.poll();
        if (r != null && limit > 0 && queue.size() < limit && fabric().srqLimitEvents) {
            limit = 0;
            fabric().raise(new AsyncEvent(AsyncEventType.SRQ_LIMIT_REACHED, pd.device(), null, null, this, 0));
        }
        return r;
    }

    @Override
    public void modify(int maxWr, int srqLimit, int mask) {
        synchronized (fabric().lock) {
            if ((mask & LIMIT) != 0) {
                limit = srqLimit;
            }
        }
    }

    @Override
    public SrqAttr query() {
        synchronized (fabric().lock) {
            return new SrqAttr(maxWr, maxSge, limit);
        }
    }

    /** Receives posted now. */
    int posted() {
        synchronized (fabric().lock) {
            return queue.size();
        }
    }

    @Override
    public void close() {
        FakeFabric f = fabric();
        synchronized (f.lock) {
            if (closed) {
                return;
            }
            if (qps > 0) {
                throw new RdmaException("ibv_destroy_srq", Errno.EBUSY, qps + " QPs still use the SRQ");
            }
            closed = true;
            pd.children--;
        }
        f.tracker.closed(this);
    }
}
