package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.RecvBatch;
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
 * are created on the same channel), an optional SRQ kept filled from the pool, the registered buffer pool and the
 * free type 2 memory windows exposures reuse. What load grew goes again after it ({@link IdleReclaim}): idle pool
 * slabs, shared CQs beyond the first that stayed without QPs for {@link LoopOptions#queueIdleTime()}, and the SRQ
 * once no QP has used it for as long (its posted buffers back to the pool; made again on next use). Closed with
 * the loop, in verbs order: SRQ, CQs (after acknowledging their events), channel, windows, memory, PD.
 * Loop-confined.
 */
public final class LoopDevice implements BufferOwner, Flushable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopDevice.class);

    private final EventLoop loop;
    private final DeviceContext context;
    private final DeviceAttributes attributes;
    private final List<WatchedCq> cqs = new ArrayList<>();
    private final QpDirectory qps = new QpDirectory();
    private ProtectionDomain pd;
    private CompletionChannel channel;
    private CompletionQueue sharedCq;
    private BufferPool pool;
    private SharedReceiveQueue srq;
    private final ArrayDeque<Window> freeWindows = new ArrayDeque<>();
    private int srqPosted;
    /** Buffer indexes posted to the SRQ now: what comes back when an idle SRQ is destroyed. */
    private boolean[] inSrq = new boolean[0];
    /** A QP was bound to the SRQ since the last idle check; seen without QPs since {@link #srqIdleSince}. */
    private boolean srqTouched;
    private boolean srqIdle;
    private long srqIdleSince;
    /**
     * The SRQ's least depth: {@link LoopOptions#srqDepth()}, at most a quarter of the pool, so that shared receives
     * never take the buffers sends and held messages need.
     */
    private final int srqDepth;
    /**
     * The most receives the SRQ holds (its {@code max_wr}): it is kept filled to {@link #srqTarget()}, which follows
     * the receive windows its connections granted, up to this — still at most a quarter of the pool, the device's
     * {@code max_srq_wr} and half a default shared CQ (every shared CQ keeps room for all of them).
     */
    private final int srqCapacity;
    /**
     * The receive windows of the connections bound to the SRQ, summed: what their peers may have in flight toward it
     * at once. Receives posted below that meet a burst with RNR NAKs and retransmissions (issue 17: 256 connections
     * on 2 loops, 4 messages each in flight against an SRQ of 512 and a refill batch of 64).
     */
    private int srqGrants;
    /** {@link #srqGrants} per bound QP, taken off again when it is unbound. */
    private final java.util.Map<Integer, Integer> grantOfQp = new java.util.HashMap<>();
    /** The grants outgrew {@link #srqCapacity} (said once per device: RNR NAKs may come from here on). */
    private boolean srqOvercommitLogged;
    /** Receives missing from the SRQ before the loop tops it up (an eighth of its least depth: posts go in batches). */
    private final int refillBatch;
    private boolean flushQueued;
    /** Waiting for the pool to free a buffer to refill the SRQ with. */
    private boolean waitingForBuffers;
    private boolean srqUnavailable;
    private boolean closed;
    private IdleReclaim reclaim;

    LoopDevice(EventLoop loop, DeviceContext context) {
        this.loop = loop;
        this.context = context;
        this.attributes = context.queryDevice();
        this.srqDepth = loop.options().srqDepth() == 0 ? 0
                : Math.max(1, Math.min(loop.options().srqDepth(), loop.options().buffers().maxBuffers() / 4));
        this.refillBatch = Math.max(1, srqDepth / 8);
        int maxSrqWr = attributes.maxSrqWr() > 0 ? attributes.maxSrqWr() : Integer.MAX_VALUE;
        this.srqCapacity = srqDepth == 0 ? 0 : Math.max(srqDepth, Math.min(Math.min(maxSrqWr,
                loop.options().buffers().maxBuffers() / 4), loop.options().cqEntries() / 2));
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
        return reserve(watch(Math.max(entries + srqCapacity, loop.options().cqEntries()), true), entries);
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

    /** {@return the shared receive queue, or {@code null} while no connection has wanted one (or the loop runs without)} */
    public SharedReceiveQueue srq() {
        return srq;
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
        if (srq == null && srqDepth > 0 && !closed && !srqUnavailable) {
            try {
                srq = pd.createSharedReceiveQueue(srqCapacity, 1, 0);
                srq.context(this);
                flush();
                srq.modify(0, Math.max(1, srqDepth / 4), SharedReceiveQueue.LIMIT);
            } catch (RuntimeException e) {
                srqUnavailable = true;
                LOG.warn("{}: no shared receive queue ({}); connections take receive windows of their own",
                        context.device().name(), e.toString());
                if (srq != null) {
                    SharedReceiveQueue failed = srq;
                    srq = null;
                    quietly("destroying the SRQ", failed::close);
                }
            }
        }
        return srq;
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
            w.reserved = srqCapacity;
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
     * connections' windows, within {@link #srqCapacity}). Loop thread.
     *
     * @param qpNum the number of a QP attached to the SRQ
     * @param endpoint the endpoint that owns it
     * @param receiveWindow the messages the connection lets its peer have in flight toward the SRQ (its credit grant)
     */
    public void bindQp(int qpNum, LoopEndpoint endpoint, int receiveWindow) {
        qps.put(qpNum, endpoint);
        srqTouched = true;
        int grant = Math.max(0, receiveWindow);
        Integer before = grantOfQp.put(qpNum, grant);
        srqGrants += grant - (before == null ? 0 : before);
        if (srqGrants + refillBatch > srqCapacity && !srqOvercommitLogged) {
            srqOvercommitLogged = true;
            LOG.info("{}: the receive windows granted on a loop's shared receive queue ({} messages) exceed what it "
                    + "holds ({}: a quarter of the pool's {} buffers, at most {}); a burst beyond it meets RNR NAKs "
                    + "and retransmissions (raise the pool's maxBuffers or lower the connections' receiveWindow)",
                    context.device().name(), srqGrants, srqCapacity, loop.options().buffers().maxBuffers(),
                    loop.options().cqEntries() / 2);
        }
        if (srqPosted < srqTarget()) {
            requestFlush(); // at the end of this turn: before the peer can hear that it may send
        }
    }

    /** How many receives the SRQ is kept filled to: its connections' windows and a refill batch, within its bounds. */
    private int srqTarget() {
        return Math.min(srqCapacity, Math.max(srqDepth, srqGrants + refillBatch));
    }

    /**
     * The QP (on the SRQ) is about to be destroyed: stop routing its receives. Loop thread.
     *
     * @param qpNum the QP's number, as given to {@link #bindQp}
     */
    public void unbindQp(int qpNum) {
        qps.remove(qpNum);
        Integer grant = grantOfQp.remove(qpNum);
        if (grant != null) {
            srqGrants -= grant; // receives posted beyond the target now are consumed and not replaced
        }
        if (qps.size() == 0 && reclaim != null) {
            reclaim.start(); // the SRQ may go once idle
        }
    }

    /**
     * Destroys the SRQ once no QP has been attached to it across idle checks spanning
     * {@link LoopOptions#queueIdleTime()}, and gives its posted buffers back to the pool: an SRQ refilled under load
     * holds buffers in whatever slabs were free then, and would pin them for good. Every CQ is polled first, so
     * receives completed before the last QP went are dispatched; then nothing can reach the buffers. The next
     * connection that wants shared receives makes a new one ({@link #sharedReceives()}). From a timer.
     *
     * @return whether it was destroyed
     */
    boolean trimSrq(long nowNanos) {
        if (srq == null || closed) {
            return false;
        }
        boolean idle = qps.size() == 0 && !srqTouched;
        srqTouched = false;
        if (!idle) {
            srqIdle = false;
            return false;
        }
        if (!srqIdle) {
            srqIdle = true;
            srqIdleSince = nowNanos;
        }
        if (nowNanos - srqIdleSince < loop.options().queueIdleTime().toNanos()) {
            return false;
        }
        for (WatchedCq w : new ArrayList<>(cqs)) {
            loop.pollCq(w.cq);
        }
        if (srq == null || qps.size() != 0 || closed) { // callbacks run by the polls changed things
            srqIdle = false;
            return false;
        }
        try {
            srq.close();
        } catch (RuntimeException e) {
            LOG.warn("destroying the idle SRQ of {} failed; it stays: {}", context.device().name(), e.toString());
            srqIdle = false;
            return false;
        }
        srq = null;
        srqIdle = false;
        int back = 0;
        for (int i = 0; i < inSrq.length; i++) {
            if (inSrq[i]) {
                inSrq[i] = false;
                Buffer b = pool.buffer(i);
                b.reclaim();
                b.release();
                back++;
            }
        }
        srqPosted = 0;
        LOG.debug("{}: destroyed the idle SRQ; {} posted buffers back to the pool", context.device().name(), back);
        return true;
    }

    /** Whether the SRQ exists with no QP attached (what {@link #trimSrq} may destroy once idle). */
    boolean srqUnused() {
        return srq != null && qps.size() == 0;
    }

    LoopEndpoint endpointOfQp(int qpNum) {
        return qps.get(qpNum);
    }

    /**
     * An SRQ receive completed into buffer {@code index} (the loop counts it before dispatching). The SRQ is topped
     * up at the end of the turn once a batch is missing: consumption drives the refill, not only returned buffers or
     * {@code SRQ_LIMIT_REACHED} — a slow consumer may hold every buffer it took, and the event may be handled before
     * the completions it warned of were polled (the count here still high, so nothing posted, and the re-armed limit
     * never crossed again by an empty queue).
     */
    void srqConsumed(int index) {
        srqPosted--;
        if (index >= 0 && index < inSrq.length) {
            inSrq[index] = false;
        }
        if (srqTarget() - srqPosted >= refillBatch) {
            requestFlush();
        }
    }

    /**
     * Gives back an SRQ buffer whose receive failed or found no endpoint; the SRQ is refilled at the end of the
     * turn. Loop thread.
     *
     * @param b the buffer, lent to the SRQ until now
     */
    public void returnSrqBuffer(Buffer b) {
        b.reclaim();
        b.release();
        requestFlush();
    }

    /** The application released an SRQ buffer: re-post. */
    @Override
    public void released(Buffer buffer) {
        requestFlush();
    }

    private void requestFlush() {
        if (!flushQueued && srq != null && !closed) {
            flushQueued = true;
            loop.requestFlush(this);
        }
    }

    /** Tops the SRQ up to its depth from the pool. */
    @Override
    public void flush() {
        flushQueued = false;
        if (srq == null || closed) {
            return;
        }
        RecvBatch batch = loop.recvBatch();
        int want = srqTarget() - srqPosted;
        while (want > 0) {
            int n = 0;
            while (n < batch.capacity() && n < want) {
                Buffer b = pool.tryAcquireForReceive(srqPosted + n == 0); // sends keep the pool's reserve
                if (b == null) {
                    break;
                }
                b.lend();
                batch.wrId(n, WrId.encode(WrId.SRQ_RECV, 0, b.index())).single(n, b.address(), b.capacity(), b.lkey());
                n++;
            }
            if (n == 0) {
                if (!waitingForBuffers) {
                    // the pool is dry: refill as soon as any buffer comes back, not only an SRQ buffer
                    waitingForBuffers = true;
                    Runnable refill = () -> {
                        waitingForBuffers = false;
                        requestFlush();
                    };
                    pool.whenReceivable(refill, srqPosted == 0); // empty: any buffer; else past the send reserve
                }
                return;
            }
            int posted = n;
            try {
                srq.postRecv(batch, n);
            } catch (PostException e) {
                posted = e.failedIndex();
                LOG.warn("refilling the SRQ of {} stopped: {}", context.device().name(), e.getMessage());
            } catch (RuntimeException e) {
                posted = 0; // the SRQ went away under us (its device closed): nothing to refill any more
                LOG.debug("refilling the SRQ of {} stopped: {}", context.device().name(), e.toString());
            }
            for (int i = posted; i < n; i++) { // what was not posted goes back to the pool
                Buffer b = pool.buffer(WrId.slot(batch.wrId(i)));
                b.reclaim();
                b.release();
            }
            srqPosted += posted;
            markPosted(batch, posted);
            if (posted < n) {
                return;
            }
            want -= posted;
        }
    }

    private void markPosted(RecvBatch batch, int n) {
        for (int i = 0; i < n; i++) {
            int index = WrId.slot(batch.wrId(i));
            if (index >= inSrq.length) {
                inSrq = java.util.Arrays.copyOf(inSrq, Math.max(index + 1, pool.options().maxBuffers()));
            }
            inSrq[index] = true;
        }
    }

    /** SRQ events: refill and re-arm the one-shot limit event. */
    void onSrqEvent(AsyncEvent e) {
        if (e.type() == AsyncEventType.SRQ_LIMIT_REACHED && srq != null && !closed) {
            LOG.debug("SRQ of {} below its limit ({} posted): refilling", context.device().name(), srqPosted);
            flush();
            srq.modify(0, Math.max(1, srqDepth / 4), SharedReceiveQueue.LIMIT);
        }
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
        if (srq != null) {
            quietly("destroying the SRQ", srq::close);
        }
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
