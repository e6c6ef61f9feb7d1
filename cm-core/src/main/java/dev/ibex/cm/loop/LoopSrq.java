package dev.ibex.cm.loop;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop device's shared receive queue. Made on first use, so a loop that never wants one pins none of its pool's
 * buffers in it. Kept filled from the pool to the receive windows its connections granted — what their peers may
 * have in flight toward it at once: receives posted below that meet a burst with RNR NAKs and retransmissions
 * (issue 17: 256 connections on 2 loops, 4 messages each in flight against an SRQ of 512 and a refill batch of 64)
 * — within its bounds, saying once at INFO when the grants outgrow them. Topped up at the end of a turn as it is
 * consumed; each receive goes to the endpoint of the QP it came in on. Destroyed once no QP has used it for
 * {@link LoopOptions#queueIdleTime()}, its posted buffers back to the pool.
 *
 * <p>Threading: the loop thread only.
 */
final class LoopSrq implements Flushable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopDevice.class); // the loop device's log category

    private final LoopDevice device;
    private final EventLoop loop;
    /** QP number → endpoint: an SRQ buffer may be consumed by any QP, so the wr_id cannot name the endpoint. */
    private final QpDirectory qps = new QpDirectory();
    private SharedReceiveQueue srq;
    private int posted;
    /** Buffer indexes posted to the SRQ now: what comes back when an idle SRQ is destroyed. */
    private boolean[] inSrq = new boolean[0];
    /** A QP was bound to the SRQ since the last idle check; seen without QPs since {@link #idleSince}. */
    private boolean touched;
    private boolean idle;
    private long idleSince;
    /**
     * The SRQ's least depth: {@link LoopOptions#srqDepth()}, at most a quarter of the pool, so that shared receives
     * never take the buffers sends and held messages need.
     */
    private final int depth;
    /**
     * The most receives the SRQ holds (its {@code max_wr}): it is kept filled to {@link #target()}, which follows
     * the receive windows its connections granted, up to this — still at most a quarter of the pool, the device's
     * {@code max_srq_wr} and half a default shared CQ (every shared CQ keeps room for all of them).
     */
    private final int capacity;
    /** The receive windows of the connections bound to the SRQ, summed. */
    private int grants;
    /** {@link #grants} per bound QP, taken off again when it is unbound. */
    private final Map<Integer, Integer> grantOfQp = new HashMap<>();
    /** The grants outgrew {@link #capacity} (said once per device: RNR NAKs may come from here on). */
    private boolean overcommitLogged;
    /** Receives missing from the SRQ before the loop tops it up (an eighth of its least depth: posts go in batches). */
    private final int refillBatch;
    private boolean flushQueued;
    /** Waiting for the pool to free a buffer to refill the SRQ with. */
    private boolean waitingForBuffers;
    private boolean unavailable;

    LoopSrq(LoopDevice device, int maxSrqWr) {
        this.device = device;
        this.loop = device.loop();
        LoopOptions o = loop.options();
        this.depth = o.srqDepth() == 0 ? 0 : Math.max(1, Math.min(o.srqDepth(), o.buffers().maxBuffers() / 4));
        this.refillBatch = Math.max(1, depth / 8);
        int maxWr = maxSrqWr > 0 ? maxSrqWr : Integer.MAX_VALUE;
        this.capacity = depth == 0 ? 0
                : Math.max(depth, Math.min(Math.min(maxWr, o.buffers().maxBuffers() / 4), o.cqEntries() / 2));
    }

    /** {@return the most receives the SRQ holds: room every shared CQ keeps for them (0 without an SRQ)} */
    int capacity() {
        return capacity;
    }

    /** {@return the SRQ, or {@code null} while no connection has wanted one} */
    SharedReceiveQueue queue() {
        return srq;
    }

    /** {@return the SRQ, created with its receives posted if none exists yet: see {@link LoopDevice#sharedReceives}} */
    SharedReceiveQueue sharedReceives() {
        if (srq == null && depth > 0 && !device.isClosed() && !unavailable) {
            try {
                srq = device.pd().createSharedReceiveQueue(capacity, 1, 0);
                srq.context(device);
                flush();
                srq.modify(0, Math.max(1, depth / 4), SharedReceiveQueue.LIMIT);
            } catch (RuntimeException e) {
                unavailable = true;
                LOG.warn("{}: no shared receive queue ({}); connections take receive windows of their own",
                        name(), e.toString());
                if (srq != null) {
                    SharedReceiveQueue failed = srq;
                    srq = null;
                    quietly("destroying the SRQ", failed::close);
                }
            }
        }
        return srq;
    }

    /** Routes the SRQ receives of {@code qpNum} to {@code endpoint}: see {@link LoopDevice#bindQp}. */
    void bind(int qpNum, LoopEndpoint endpoint, int receiveWindow) {
        qps.put(qpNum, endpoint);
        touched = true;
        int grant = Math.max(0, receiveWindow);
        Integer before = grantOfQp.put(qpNum, grant);
        grants += grant - (before == null ? 0 : before);
        if (grants + refillBatch > capacity && !overcommitLogged) {
            overcommitLogged = true;
            LOG.info("{}: the receive windows granted on a loop's shared receive queue ({} messages) exceed what it "
                    + "holds ({}: a quarter of the pool's {} buffers, at most {}); a burst beyond it meets RNR NAKs "
                    + "and retransmissions (raise the pool's maxBuffers or lower the connections' receiveWindow)",
                    name(), grants, capacity, loop.options().buffers().maxBuffers(), loop.options().cqEntries() / 2);
        }
        if (posted < target()) {
            requestFlush(); // at the end of this turn: before the peer can hear that it may send
        }
    }

    /** How many receives the SRQ is kept filled to: its connections' windows and a refill batch, within its bounds. */
    private int target() {
        return Math.min(capacity, Math.max(depth, grants + refillBatch));
    }

    /** The QP is about to be destroyed: its receives are no longer routed. */
    void unbind(int qpNum) {
        qps.remove(qpNum);
        Integer grant = grantOfQp.remove(qpNum);
        if (grant != null) {
            grants -= grant; // receives posted beyond the target now are consumed and not replaced
        }
        if (qps.size() == 0) {
            device.startReclaim(); // the SRQ may go once idle
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
    boolean trim(long nowNanos) {
        if (srq == null || device.isClosed()) {
            return false;
        }
        boolean unused = qps.size() == 0 && !touched;
        touched = false;
        if (!unused) {
            idle = false;
            return false;
        }
        if (!idle) {
            idle = true;
            idleSince = nowNanos;
        }
        if (nowNanos - idleSince < loop.options().queueIdleTime().toNanos()) {
            return false;
        }
        device.pollEveryCq();
        if (srq == null || qps.size() != 0 || device.isClosed()) { // callbacks run by the polls changed things
            idle = false;
            return false;
        }
        try {
            srq.close();
        } catch (RuntimeException e) {
            LOG.warn("destroying the idle SRQ of {} failed; it stays: {}", name(), e.toString());
            idle = false;
            return false;
        }
        srq = null;
        idle = false;
        BufferPool pool = device.pool();
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
        posted = 0;
        LOG.debug("{}: destroyed the idle SRQ; {} posted buffers back to the pool", name(), back);
        return true;
    }

    /** Whether the SRQ exists with no QP attached (what {@link #trim} may destroy once idle). */
    boolean unused() {
        return srq != null && qps.size() == 0;
    }

    /** {@return the endpoint of the QP an SRQ receive completed on, or {@code null}} */
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
    void consumed(int index) {
        posted--;
        if (index >= 0 && index < inSrq.length) {
            inSrq[index] = false;
        }
        if (target() - posted >= refillBatch) {
            requestFlush();
        }
    }

    /** Gives back an SRQ buffer whose receive failed or found no endpoint; refilled at the end of the turn. */
    void returnBuffer(Buffer b) {
        b.reclaim();
        b.release();
        requestFlush();
    }

    /** Tops the SRQ up at the end of this turn (once). */
    void requestFlush() {
        if (!flushQueued && srq != null && !device.isClosed()) {
            flushQueued = true;
            loop.requestFlush(this);
        }
    }

    /** Tops the SRQ up to its target from the pool. */
    @Override
    public void flush() {
        flushQueued = false;
        if (srq == null || device.isClosed()) {
            return;
        }
        BufferPool pool = device.pool();
        RecvBatch batch = loop.recvBatch();
        int want = target() - posted;
        while (want > 0) {
            int n = 0;
            while (n < batch.capacity() && n < want) {
                Buffer b = pool.tryAcquireForReceive(posted + n == 0); // sends keep the pool's reserve
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
                    pool.whenReceivable(refill, posted == 0); // empty: any buffer; else past the send reserve
                }
                return;
            }
            int done = n;
            try {
                srq.postRecv(batch, n);
            } catch (PostException e) {
                done = e.failedIndex();
                LOG.warn("refilling the SRQ of {} stopped: {}", name(), e.getMessage());
            } catch (RuntimeException e) {
                done = 0; // the SRQ went away under us (its device closed): nothing to refill any more
                LOG.debug("refilling the SRQ of {} stopped: {}", name(), e.toString());
            }
            for (int i = done; i < n; i++) { // what was not posted goes back to the pool
                Buffer b = pool.buffer(WrId.slot(batch.wrId(i)));
                b.reclaim();
                b.release();
            }
            posted += done;
            markPosted(batch, done);
            if (done < n) {
                return;
            }
            want -= done;
        }
    }

    private void markPosted(RecvBatch batch, int n) {
        for (int i = 0; i < n; i++) {
            int index = WrId.slot(batch.wrId(i));
            if (index >= inSrq.length) {
                inSrq = Arrays.copyOf(inSrq, Math.max(index + 1, device.pool().options().maxBuffers()));
            }
            inSrq[index] = true;
        }
    }

    /** An SRQ event: on SRQ_LIMIT_REACHED, refill and re-arm the one-shot limit event. */
    void onEvent(AsyncEvent e) {
        if (e.type() == AsyncEventType.SRQ_LIMIT_REACHED && srq != null && !device.isClosed()) {
            LOG.debug("SRQ of {} below its limit ({} posted): refilling", name(), posted);
            flush();
            srq.modify(0, Math.max(1, depth / 4), SharedReceiveQueue.LIMIT);
        }
    }

    /** The device closes: the SRQ goes first, before the CQs. */
    void close() {
        if (srq != null) {
            quietly("destroying the SRQ", srq::close);
        }
    }

    private String name() {
        return device.context().device().name();
    }

    private void quietly(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("{} of {} failed: {}", what, name(), e.toString());
        }
    }
}
