package dev.ibex.cm.loop;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a loop reads its CQs: the ring of CQs whose events came, each drained up to the completion budget per turn and
 * then sent to the back so a flooding CQ cannot starve the others; the CQ spin's single polls; and the dispatch of
 * each completion to its endpoint (a shared receive queue's receive to the endpoint of its QP). Loop-confined.
 */
final class LoopCompletions {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class); // the loop's log category

    private final EventLoop loop;
    private final EndpointTable endpoints;
    private final CompletionBatch wcs;
    private final int budget;
    private final ArrayDeque<WatchedCq> ready = new ArrayDeque<>();
    /** Completions are being handed to endpoints (a callback must not start another pass). */
    private boolean dispatching;

    LoopCompletions(EventLoop loop, EndpointTable endpoints, CompletionBatch wcs, int budget) {
        this.loop = loop;
        this.endpoints = endpoints;
        this.wcs = wcs;
        this.budget = budget;
    }

    /** Queues {@code w} for the next pass (once). */
    void ready(WatchedCq w) {
        if (!w.queued) {
            w.queued = true;
            ready.add(w);
        }
    }

    /** {@return whether a CQ waits for the next pass} */
    boolean hasReady() {
        return !ready.isEmpty();
    }

    /** One pass over the CQs queued when it began: each up to the budget, a CQ that may hold more to the back. */
    void pass() {
        int n = ready.size();
        for (int k = 0; k < n; k++) {
            WatchedCq w = ready.poll();
            if (!w.closed && drain(w)) {
                ready.add(w);
            } else {
                w.queued = false;
            }
        }
    }

    /**
     * Polls {@code cq} until it is empty now, outside the regular pass (see {@link EventLoop#pollCq}).
     *
     * @throws IllegalStateException while completions are being dispatched
     */
    void pollCq(CompletionQueue cq) {
        if (dispatching) {
            throw new IllegalStateException("pollCq while completions are being dispatched");
        }
        if (cq.context() instanceof WatchedCq w && !w.closed) {
            while (drain(w)) {
                // a full budget: there may be more
            }
        }
    }

    /** Polls one CQ up to the budget; true when it may hold more. */
    private boolean drain(WatchedCq w) {
        int done = 0;
        while (done < budget) {
            int got;
            try {
                got = w.cq.poll(wcs);
            } catch (RuntimeException e) {
                LOG.warn("polling a CQ on {} failed: {}", loop.thread().getName(), e.toString());
                return false;
            }
            dispatch(w, got);
            done += got;
            if (got < wcs.capacity() || w.closed) {
                return false;
            }
        }
        return true;
    }

    /**
     * Polls {@code w} once, without its event (the loop's CQ spin), dispatching what it held; a full batch queues it
     * for the regular pass.
     *
     * @return whether it held completions
     */
    boolean pollOnce(WatchedCq w) {
        int got;
        try {
            got = w.cq.poll(wcs);
        } catch (RuntimeException e) {
            return false; // the regular pass reports a failing CQ
        }
        if (got == 0) {
            return false;
        }
        dispatch(w, got);
        if (got == wcs.capacity() && !w.closed) {
            ready(w);
        }
        return true;
    }

    private void dispatch(WatchedCq w, int got) {
        dispatching = true;
        try {
            for (int i = 0; i < got; i++) {
                dispatchCompletion(w, i);
            }
        } finally {
            dispatching = false;
        }
    }

    private void dispatchCompletion(WatchedCq w, int i) {
        long wrId = wcs.wrId(i);
        int kind = WrId.kind(wrId);
        LoopEndpoint ep;
        if (kind == WrId.SRQ_RECV) {
            LoopDevice d = w.device;
            LoopSrq srq = d.loopSrq();
            srq.consumed(WrId.slot(wrId));
            ep = srq.endpointOfQp(wcs.qpNum(i));
            if (ep == null) {
                var b = d.pool().buffer(WrId.slot(wrId));
                if (b != null) {
                    srq.returnBuffer(b);
                }
                return;
            }
        } else {
            ep = endpoints.get(WrId.handle(wrId));
            if (ep == null) {
                // a completion of an endpoint torn down without draining: its buffers were already reclaimed
                LOG.debug("dropping a stale completion (wr_id 0x{}, {})", Long.toHexString(wrId), wcs.status(i));
                return;
            }
        }
        try {
            ep.onCompletion(wcs, i, kind, WrId.slot(wrId));
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }
}
