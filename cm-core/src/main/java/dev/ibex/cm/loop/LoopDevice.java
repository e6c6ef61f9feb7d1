package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one loop holds on one device, created the first time an endpoint of the loop uses the device: a
 * protection domain, a completion channel registered with the loop's poller, a shared CQ (per-connection CQs
 * are created on the same channel), an optional SRQ kept filled from the pool ({@code LoopSrq}), the registered
 * buffer pool and the free type 2 memory windows exposures reuse. What load grew goes again after it
 * ({@link IdleReclaim}): idle pool slabs, shared CQs beyond the first that stayed without QPs for
 * {@link LoopOptions#queueIdleTime()}, and the SRQ once no QP has used it for as long (its posted buffers back to
 * the pool; made again on next use). Closed with the loop, in verbs order: SRQ, CQs (after acknowledging their
 * events), channel, windows, memory, PD. Loop-confined.
 */
public final class LoopDevice implements BufferOwner, Flushable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopDevice.class);

    private final EventLoop loop;
    private final DeviceContext context;
    private final DeviceAttributes attributes;
    private final List<WatchedCq> cqs = new ArrayList<>();
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue sharedCq;
    private BufferPool pool;
    private final LoopSrq srq;
    private final ArrayDeque<Window> freeWindows = new ArrayDeque<>();
    private boolean closed;
    private IdleReclaim reclaim;

    LoopDevice(EventLoop loop, DeviceContext context) {
        this.loop = loop;
        this.context = context;
        this.attributes = context.queryDevice();
        this.srq = new LoopSrq(this, attributes.maxSrqWr());
        try {
            pd = context.allocPd();
            channel = context.createCompletionChannel();
            loop.poller().register(channel, (EventLoop.Source) this::readChannel);
            sharedCq = watch(loop.options().cqEntries(), true).cq;
            Runnable drain = () -> pool.drainReturns();
            BufferPool.Options buffers = loop.options().buffers();
            if (attributes.supportsMemoryWindows() && !buffers.access().contains(Access.MW_BIND)) {
                // windows are bound over the slabs; MW_BIND itself grants a peer nothing
                EnumSet<Access> a = EnumSet.of(Access.MW_BIND);
                a.addAll(buffers.access());
                buffers = buffers.withAccess(a);
            }
            pool = new BufferPool(pd, buffers, () -> {
                try {
                    loop.execute(drain);
                } catch (java.util.concurrent.RejectedExecutionException terminated) {
                    // the loop closed the pool: released buffers have nowhere to go
                }
            });
            reclaim = new IdleReclaim(this, buffers.idleTime().toNanos(), loop.options().queueIdleTime().toNanos());
            pool.onGrowth(reclaim::start);
            Runnable runWaiters = () -> pool.runWaiters();
            pool.wakeWith(() -> {
                try {
                    loop.execute(runWaiters);
                } catch (java.util.concurrent.RejectedExecutionException terminated) {
                    // closing: nobody waits any more
                }
            });
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** {@return the loop that owns these resources} */
    public EventLoop loop() {
        return loop;
    }

    /** {@return the opened device these resources live on} */
    public DeviceContext context() {
        return context;
    }

    /** {@return the device's attributes, queried once} */
    public DeviceAttributes attributes() {
        return attributes;
    }

    /** {@return the loop's protection domain on this device: its pool, QPs and windows all live in it} */
    public ProtectionDomain pd() {
        return pd;
    }

    /** {@return the loop's registered buffers on this device} */
    public BufferPool pool() {
        return pool;
    }

    /**
     * A type 2 memory window of this device's PD, free to bind: a cached one, or a new one. Loop thread.
     *
     * @return a window the caller owns until {@link #returnWindow} or {@link #discardWindow}
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the device has no memory windows
     */
    public Window takeWindow() {
        Window w = freeWindows.poll();
        return w != null ? w : new Window(pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2));
    }

    /**
     * Gives back a window that is free again (invalidated, or never bound); past the pool's buffer count, or once
     * closed, it is deallocated instead. Loop thread.
     *
     * @param w a window from {@link #takeWindow}
     */
    public void returnWindow(Window w) {
        if (closed || freeWindows.size() >= pool.options().maxBuffers()) {
            discardWindow(w);
        } else {
            freeWindows.push(w);
        }
    }

    /**
     * Deallocates a window whose state is unknown (its bind failed, or its QP went away while it was bound); a
     * failure is logged. Loop thread.
     *
     * @param w a window from {@link #takeWindow}
     */
    public void discardWindow(Window w) {
        quietly("deallocating a memory window", w.mw()::close);
    }

    /** {@return how many windows are allocated and free now (for tests and leak checks)} */
    public int freeWindows() {
        return freeWindows.size();
    }

    /** {@return the first CQ the loop's endpoints on this device share} */
    public CompletionQueue sharedCq() {
        return sharedCq;
    }

    /**
     * A shared CQ with room for {@code entries} more completions (every WR a QP can have outstanding), reserved
     * until {@link #unreserveCq}: a full CQ overruns and dies ({@code CQ_ERR}), so when the shared CQs are fully
     * promised another one is created. Loop thread.
     *
     * @param entries the completions to reserve room for
     * @return a shared CQ with that room
     * @throws dev.ibex.cm.RdmaException when a new CQ is needed and the device refuses it
     */
    public CompletionQueue reserveCq(int entries) {
        for (WatchedCq w : cqs) {
            if (w.shared && !w.closed && w.reserved + entries <= w.cq.capacity()) {
                return reserve(w, entries);
            }
        }
        return reserve(watch(Math.max(entries + srq.capacity(), loop.options().cqEntries()), true), entries);
    }

    private CompletionQueue reserve(WatchedCq w, int entries) {
        w.reserved += entries;
        w.qps++;
        w.touched = true;
        return w.cq;
    }

    /**
     * Returns a reservation made with {@link #reserveCq}, once the QP that had it is destroyed. Loop thread.
     *
     * @param cq the CQ {@link #reserveCq} returned; others are ignored
     * @param entries the entries reserved
     */
    public void unreserveCq(CompletionQueue cq, int entries) {
        if (cq.context() instanceof WatchedCq w && w.shared) {
            w.reserved = Math.max(0, w.reserved - entries);
            w.qps = Math.max(0, w.qps - 1);
        }
    }

    /**
     * Destroys the shared CQs (never the first) that have had no QP across idle checks spanning
     * {@link LoopOptions#queueIdleTime()}. No QP references such a CQ (reservations are returned after the QP is
     * destroyed) and no new completion can reach it; what it still holds is dispatched first (an SRQ buffer goes
     * back), then its events are acknowledged and it is destroyed. From a timer, never while completions are
     * dispatched.
     *
     * @return the CQs destroyed
     */
    int trimCqs(long nowNanos) {
        long idleNanos = loop.options().queueIdleTime().toNanos();
        int destroyed = 0;
        for (WatchedCq w : new ArrayList<>(cqs)) { // a copy: polling may run callbacks that change the list
            if (!w.shared || w.closed || w.cq == sharedCq) {
                continue;
            }
            boolean idle = w.qps == 0 && !w.touched;
            w.touched = false;
            if (!idle) {
                w.idle = false;
                continue;
            }
            if (!w.idle) {
                w.idle = true;
                w.idleSince = nowNanos;
            }
            if (nowNanos - w.idleSince >= idleNanos) {
                loop.pollCq(w.cq); // dispatching may run callbacks: re-check what they may have changed
                if (w.qps > 0 || w.closed) {
                    w.idle = false;
                    continue;
                }
                cqs.remove(w);
                quietly("destroying an idle CQ", w::destroy);
                destroyed++;
            }
        }
        if (destroyed > 0) {
            LOG.debug("{}: destroyed {} idle shared CQ(s); {} CQs left", context.device().name(), destroyed,
                    cqs.size());
        }
        return destroyed;
    }

    /** Shared CQs beyond the first (what {@link #trimCqs} may destroy once idle). */
    int extraSharedCqs() {
        int n = 0;
        for (WatchedCq w : cqs) {
            if (w.shared && !w.closed && w.cq != sharedCq) {
                n++;
            }
        }
        return n;
    }

    /** {@return how many CQs the loop reads on this device now: its shared ones and the connections' own} */
    public int cqCount() {
        return cqs.size();
    }

    boolean isClosed() {
        return closed;
    }

    /** {@return the shared receive queue's keeper (made or not)} */
    LoopSrq loopSrq() {
        return srq;
    }

    /** Something may become idle (an SRQ without QPs): the reclaim timer ticks until it is gone. */
    void startReclaim() {
        if (reclaim != null) {
            reclaim.start();
        }
    }

    /** Polls every CQ of this device until it is empty now (a copy: the callbacks may change the list). */
    void pollEveryCq() {
        for (WatchedCq w : new ArrayList<>(cqs)) {
            loop.pollCq(w.cq);
        }
    }

    /** {@return the shared receive queue, or {@code null} while no connection has wanted one (or the loop runs without)} */
    public SharedReceiveQueue srq() {
        return srq.queue();
    }

    /**
     * The shared receive queue, created with its receives posted on first use: a loop that only ever runs UD
     * endpoints, or connections with windows of their own, pins none of its pool's buffers in it. {@code null} when
     * the loop runs without one ({@link LoopOptions#srqDepth()} 0), or the device could not create it (logged;
     * connections then take windows of their own). Loop thread.
     *
     * @return the SRQ, or {@code null}
     */
    public SharedReceiveQueue sharedReceives() {
        return srq.sharedReceives();
    }

    /**
     * Polls each open CQ of this device once (the loop's CQ spin), by index: the first that held completions has had
     * them dispatched, whose callbacks may change the list, so the walk ends there. Loop thread.
     *
     * @param completions the loop's CQ reading
     * @return whether a CQ held completions
     */
    boolean pollOnce(LoopCompletions completions) {
        for (int i = 0; i < cqs.size(); i++) {
            WatchedCq w = cqs.get(i);
            if (!w.closed && completions.pollOnce(w)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Re-arms the CQs a notification left unarmed while the loop spun, polling each once after arming it (what
     * completed while it was unarmed raised no event). Before the loop blocks.
     *
     * @param completions the loop's CQ reading
     * @return whether a CQ held completions (the loop then does not block)
     */
    boolean rearm(LoopCompletions completions) {
        boolean found = false;
        for (int i = 0; i < cqs.size(); i++) {
            WatchedCq w = cqs.get(i);
            if (w.rearm()) {
                found |= completions.pollOnce(w);
            }
        }
        return found;
    }

    /** Polls once each CQ a notification left unarmed (a turn that does not block: they would raise no event). */
    void pollUnarmed(LoopCompletions completions) {
        for (int i = 0; i < cqs.size(); i++) {
            WatchedCq w = cqs.get(i);
            if (!w.armed && !w.closed) {
                completions.pollOnce(w);
            }
        }
    }

    /**
     * A CQ of its own (e.g. per connection) on this loop's completion channel, armed and watched. Loop thread.
     *
     * @param minEntries the fewest completions it must hold
     * @return the CQ; destroy it with {@link #destroyCq}
     * @throws dev.ibex.cm.RdmaException when the device refuses it
     */
    public CompletionQueue createCq(int minEntries) {
        return watch(minEntries, false).cq;
    }

    private WatchedCq watch(int minEntries, boolean shared) {
        CompletionQueue cq = context.createCompletionQueue(minEntries, channel,
                loop.index() % Math.max(1, context.numCompVectors()));
        WatchedCq w = new WatchedCq(cq, this, shared);
        if (shared) {
            // any QP on a shared CQ may take receives from the SRQ: room for all of them, whoever consumes them
            w.reserved = srq.capacity();
        }
        cqs.add(w);
        cq.requestNotify(false);
        loop.ready(w); // poll once: anything that arrived before arming raised no event
        if (shared && sharedCq != null && reclaim != null) {
            reclaim.start(); // a CQ beyond the first: destroyed again once idle
        }
        return w;
    }

    /**
     * Acknowledges the CQ's outstanding events, then destroys it (its QPs must be gone). Loop thread.
     *
     * @param cq a CQ from {@link #createCq}
     * @throws IllegalArgumentException when another loop device created it
     */
    public void destroyCq(CompletionQueue cq) {
        if (cq.context() instanceof WatchedCq w && w.device == this) {
            cqs.remove(w);
            w.destroy();
        } else {
            throw new IllegalArgumentException("the CQ was not created by this loop device");
        }
    }

    /**
     * Routes SRQ receive completions of {@code qpNum} to {@code endpoint}, and keeps room in the SRQ for the
     * {@code receiveWindow} messages its peer may send before it hears back (the SRQ is topped up to the sum of its
     * connections' windows, within the SRQ's capacity). Loop thread.
     *
     * @param qpNum the number of a QP attached to the SRQ
     * @param endpoint the endpoint that owns it
     * @param receiveWindow the messages the connection lets its peer have in flight toward the SRQ (its credit grant)
     */
    public void bindQp(int qpNum, LoopEndpoint endpoint, int receiveWindow) {
        srq.bind(qpNum, endpoint, receiveWindow);
    }

    /**
     * The QP (on the SRQ) is about to be destroyed: stop routing its receives. Loop thread.
     *
     * @param qpNum the QP's number, as given to {@link #bindQp}
     */
    public void unbindQp(int qpNum) {
        srq.unbind(qpNum);
    }

    /**
     * Gives back an SRQ buffer whose receive failed or found no endpoint; the SRQ is refilled at the end of the
     * turn. Loop thread.
     *
     * @param b the buffer, lent to the SRQ until now
     */
    public void returnSrqBuffer(Buffer b) {
        srq.returnBuffer(b);
    }

    /** The application released an SRQ buffer: re-post. */
    @Override
    public void released(Buffer buffer) {
        srq.requestFlush();
    }

    /** Tops the SRQ up to its depth from the pool. */
    @Override
    public void flush() {
        srq.flush();
    }

    /** SRQ events: refill and re-arm the one-shot limit event. */
    void onSrqEvent(AsyncEvent e) {
        srq.onEvent(e);
        loop.broadcast(e);
    }

    /** Channel readiness: take every notification, count and re-arm each CQ, queue it for polling. */
    private void readChannel() {
        CompletionQueue cq;
        while ((cq = channel.poll()) != null) {
            if (cq.context() instanceof WatchedCq w && !w.closed) {
                w.notified(loop.options().ackBatch(), !loop.spinsOnCqs());
                loop.ready(w);
            }
        }
    }

    /** Closes everything in verbs order; QPs and address handles must already be gone. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (reclaim != null) {
            reclaim.stop();
        }
        srq.close();
        for (WatchedCq w : cqs) {
            quietly("destroying a CQ", w::destroy);
        }
        cqs.clear();
        if (channel != null) {
            quietly("deregistering the completion channel", () -> loop.poller().deregister(channel));
            quietly("destroying the completion channel", channel::close);
        }
        Window w;
        while ((w = freeWindows.poll()) != null) {
            discardWindow(w); // before the memory they were bound to
        }
        if (pool != null) {
            // QPs and the SRQ are gone: what was posted to them can come back before the memory is deregistered
            quietly("reclaiming posted buffers", pool::reclaimLent);
            quietly("closing the buffer pool", pool::close);
        }
        if (pd != null) {
            quietly("deallocating the PD", pd::close);
        }
    }

    private void quietly(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("{} of {} failed: {}", what, context.device().name(), e.toString());
        }
    }
}
