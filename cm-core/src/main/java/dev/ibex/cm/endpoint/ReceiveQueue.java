package dev.ibex.cm.endpoint;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.Flushable;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A QP's receive credits: keeps {@code window} receives posted, minus the buffers the application still holds.
 * A receive is re-posted only when the application releases a message, so a slow consumer stops the sender (RNR)
 * instead of growing memory. Posted buffers form a ring in posting order (a receive queue completes in order), so
 * teardown can reclaim them. When the pool has no buffer left, the queue waits for the pool to free one
 * ({@link BufferPool#whenFree}) and posts again until its window is posted: a queue is never left short (or, worse, empty: deaf to every datagram) just because
 * the pool was exhausted when it last looked. It leaves the pool's {@link BufferPool#receiveReserve()} to sends unless
 * it has no receive posted at all. Loop-confined.
 */
final class ReceiveQueue implements Flushable {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiveQueue.class);

    private final EventLoop loop;
    private final QueuePair qp;
    private final BufferPool pool;
    private final int handle;
    private final int window;
    /** Receives to keep posted now: a few while the handshake runs, the window once established. */
    private int limit;
    /** Waiting for the pool to free a buffer: a window is never left short while buffers are free. */
    private boolean waitingForBuffers;
    private final Runnable buffersFreed = () -> {
        waitingForBuffers = false;
        requestFlush();
    };
    private final int payloadOffset;
    private final Buffer[] ring;
    private long head;
    private long tail;
    private int held;
    private boolean flushQueued;
    private boolean stopped;
    private boolean warned;

    /**
     * @param payloadOffset where payload starts in a receive buffer (40 on UD: the GRH)
     */
    ReceiveQueue(EventLoop loop, QueuePair qp, BufferPool pool, int handle, int window, int payloadOffset) {
        this.loop = loop;
        this.qp = qp;
        this.pool = pool;
        this.handle = handle;
        this.window = window;
        this.limit = window;
        this.payloadOffset = payloadOffset;
        this.ring = new Buffer[window];
    }

    /**
     * Posts only {@code n} receives until {@link #open()}: a connection whose handshake may never complete (a
     * forged request) must not pin a whole window of buffers.
     */
    void limit(int n) {
        limit = Math.min(window, Math.max(1, n));
    }

    /** The whole window from now on (the connection is established). */
    void open() {
        if (limit < window) {
            limit = window;
            requestFlush();
        }
    }

    int posted() {
        return (int) (head - tail);
    }

    /** Messages the application holds. */
    int held() {
        return held;
    }

    int window() {
        return window;
    }

    /** Posts receives up to the window. */
    @Override
    public void flush() {
        flushQueued = false;
        if (stopped) {
            return;
        }
        RecvBatch batch = loop.recvBatch();
        int want = limit - posted() - held;
        while (want > 0) {
            int n = 0;
            while (n < want && n < batch.capacity()) {
                Buffer b = pool.tryAcquireForReceive(posted() + n == 0); // sends keep the pool's reserve
                if (b == null) {
                    break;
                }
                b.lend();
                batch.wrId(n, WrId.encode(WrId.RECV, handle, b.index())).single(n, b.address(), b.capacity(), b.lkey());
                ring[(int) ((head + n) % window)] = b;
                n++;
            }
            if (n == 0) {
                starved();
                return;
            }
            int posted = n;
            try {
                qp.postRecv(batch, n);
            } catch (PostException e) {
                posted = e.failedIndex();
                LOG.warn("posting receives stopped: {}", e.getMessage());
            } catch (RuntimeException e) {
                posted = 0;
                LOG.warn("posting receives failed: {}", e.toString());
            }
            for (int i = posted; i < n; i++) {
                Buffer b = ring[(int) ((head + i) % window)];
                ring[(int) ((head + i) % window)] = null;
                b.reclaim();
                b.release();
            }
            head += posted;
            if (posted < n) {
                return;
            }
            want -= posted;
        }
        if (warned) {
            warned = false;
            LOG.info("{}: all {} receives posted again", pool, window);
        }
    }

    /** The pool is empty: post again as soon as it frees a buffer (its waiters run on this loop). */
    private void starved() {
        if (posted() == 0 && !warned) {
            warned = true;
            LOG.warn("{} is exhausted: none of {} receives posted, so this QP receives nothing until buffers are "
                    + "released (waiting for buffers)", pool, window);
        } else {
            LOG.debug("{} is exhausted: {} receives posted of a window of {}; waiting for buffers", pool, posted(),
                    window);
        }
        if (!waitingForBuffers && !stopped) {
            waitingForBuffers = true;
            pool.whenReceivable(buffersFreed, posted() == 0); // deaf: any buffer will do; short: past the reserve
        }
    }

    /** A receive completed: the oldest posted buffer (must be {@code index}). */
    Buffer completed(int index) {
        if (head == tail) {
            return null;
        }
        int k = (int) (tail % window);
        Buffer b = ring[k];
        if (b == null || b.index() != index) {
            LOG.warn("receive completion for buffer {} out of order (expected {})", index, b == null ? -1 : b.index());
            return null;
        }
        ring[k] = null;
        tail++;
        return b;
    }

    int payloadOffset() {
        return payloadOffset;
    }

    /** A buffer goes to the application. */
    void handedOut() {
        held++;
    }

    /** The application released a message: one more receive to post. */
    void released() {
        held--;
        requestFlush();
    }

    /** A receive's buffer came back without reaching the application (error or flush): post another. */
    void recycled() {
        requestFlush();
    }

    private void requestFlush() {
        if (!flushQueued && !stopped) {
            flushQueued = true;
            loop.requestFlush(this);
        }
    }

    /**
     * The connection is going down: post nothing more. A receive posted to a QP in ERR comes straight back flushed
     * and would be re-posted again, so a window larger than one loop turn's completion budget never drained.
     */
    void stop() {
        stopped = true;
    }

    /** Teardown (the QP is destroyed): every posted buffer returns to the pool; nothing is posted any more. */
    void reclaimAll() {
        stopped = true;
        while (tail < head) {
            int k = (int) (tail % window);
            Buffer b = ring[k];
            ring[k] = null;
            tail++;
            if (b != null) {
                b.reclaim();
                b.release();
            }
        }
    }
}
