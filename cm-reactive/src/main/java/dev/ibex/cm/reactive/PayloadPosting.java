package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import reactor.util.context.Context;

/**
 * How a {@link ReactiveConnection} turns a payload into posted buffers: the buffer of an operation, a SEND's payload
 * copied into one buffer or across several (one message of several buffers), the wiretap and the sent-bytes metric,
 * and whether the buffers a SEND needs are free yet.
 *
 * <p>Threading: the connection's loop only (as {@link SendTarget}); it allocates nothing of its own per message.
 */
final class PayloadPosting {
    private final ReactiveConnection owner;
    private final Connection connection;
    private final EventLoop loop;
    private final InetSocketAddress remote;
    private final RdmaMetricsRecorder metrics;
    private final WireLog wiretap;
    /** The buffers of the message of several being posted (reused; empty between posts). */
    private final BufferList outList = new BufferList(16);

    PayloadPosting(ReactiveConnection owner, Connection connection, RdmaMetricsRecorder metrics, WireLog wiretap) {
        this.owner = owner;
        this.connection = connection;
        this.loop = connection.loop();
        this.remote = connection.remoteAddress();
        this.metrics = metrics;
        this.wiretap = wiretap;
    }

    /** A buffer for an operation (loop thread); a {@link Message} payload is released when there is none. */
    Buffer allocateFor(Object payload) {
        Buffer b;
        try {
            b = connection.tryAllocate();
        } catch (RuntimeException e) {
            if (payload != null) {
                Payloads.discard(payload, Context.empty());
            }
            throw e;
        }
        if (b == null) {
            try {
                return connection.allocate(); // throws the typed PoolExhaustedException (or a buffer freed meanwhile)
            } catch (RuntimeException e) {
                if (payload != null) {
                    Payloads.discard(payload, Context.empty()); // released only when it will not be copied
                }
                throw e;
            }
        }
        return b;
    }

    /**
     * {@link SendTarget#bufferAvailable}: whether the buffers {@code item} needs are free; if not, {@code whenFree}
     * runs once they may be.
     */
    boolean bufferAvailable(Object item, Runnable whenFree) {
        dev.ibex.cm.buffer.BufferPool p = connection.pool();
        if (p == null) {
            return true; // (no pool: the post fails with the connection's state)
        }
        int needed = buffersFor(Payloads.size(item, p.bufferSize()), p);
        if (needed <= 1 ? p.canAcquire() : needed > p.options().maxBuffers() || p.headroom() >= needed) {
            return true; // (more than the pool ever holds: the post fails with a typed error)
        }
        if (needed > 1 && p.canAcquire()) {
            // some are free, not enough: the pool wakes waiters per buffer, so look again a little later
            loop.schedule(whenFree, 1, java.util.concurrent.TimeUnit.MILLISECONDS);
        } else {
            p.whenFree(whenFree);
        }
        return false;
    }

    /** Buffers a payload of {@code size} bytes takes: one, or as many as a message of several buffers needs. */
    private int buffersFor(long size, dev.ibex.cm.buffer.BufferPool p) {
        if (size <= p.bufferSize() || size > connection.maxMessageSize()) {
            return 1;
        }
        return (int) ((size + p.bufferSize() - 1) / p.bufferSize());
    }

    /** {@link SendTarget#post}: copies {@code item} into buffers and posts it as one SEND; returns its length. */
    int post(Object item, long attachment) {
        dev.ibex.cm.buffer.BufferPool p = connection.pool();
        long size = p == null ? -1 : Payloads.size(item, p.bufferSize());
        if (p != null && size > p.bufferSize()) {
            return postLarge(item, size, p, attachment);
        }
        Buffer b = allocateFor(item);
        int len;
        try {
            len = Payloads.copy(item, b);
            if (wiretap != null) { // before posting: the buffer is the device's afterwards
                wiretap.message(owner, "SEND", b.segment(), 0, len, len);
            }
            if (item instanceof WithImmediate w) {
                connection.sendWithImm(b, 0, len, w.immData(), attachment);
            } else if (item instanceof WithInvalidate v) {
                connection.sendWithInvalidate(b, 0, len, v.rkey(), attachment);
            } else if (item instanceof Message m && m.hasImmData()) { // forwarding keeps the immediate data
                connection.sendWithImm(b, 0, len, m.immData(), attachment);
            } else {
                connection.send(b, 0, len, attachment);
            }
        } catch (RuntimeException e) {
            b.release();
            throw e;
        }
        if (metrics != null) {
            metrics.recordDataSent(remote, len);
        }
        return len;
    }

    /** A payload longer than a buffer: copied across as many, sent as one message of several buffers. */
    private int postLarge(Object item, long size, dev.ibex.cm.buffer.BufferPool p, long attachment) {
        int max = connection.maxMessageSize();
        if (size > max) {
            Payloads.discard(item, Context.empty());
            throw new dev.ibex.cm.endpoint.MessageTooLargeException(size, max, max <= p.bufferSize()
                    ? "the peer reassembles no message of several buffers (a C program, or an end in "
                    + "ReceiveMode.WINDOW): send one buffer per message"
                    : "raise ConnectionOptions.withMaxMessageSize at both ends (the limit is the smaller of the two)");
        }
        if (item instanceof WithInvalidate) {
            Payloads.discard(item, Context.empty());
            throw new IllegalArgumentException("SEND_WITH_INV carries one buffer: a " + size + "-byte payload is "
                    + "longer (send the data first, then a short WithInvalidate)");
        }
        BufferList list = outList;
        int n = buffersFor(size, p);
        try {
            for (int k = 0; k < n; k++) {
                Buffer b = connection.tryAllocate();
                if (b == null) {
                    throw new dev.ibex.cm.buffer.PoolExhaustedException(p + " has no " + n + " buffers free for a "
                            + size + "-byte message (raise BufferPool.Options.maxBuffers)");
                }
                list.add(b, 0, (int) Math.min(p.bufferSize(), size - (long) k * p.bufferSize()));
            }
        } catch (RuntimeException e) {
            list.release();
            Payloads.discard(item, Context.empty());
            throw e;
        }
        try {
            Payloads.copy(item, list);
            if (wiretap != null) {
                wiretap.message(owner, "SEND", list.buffer(0).segment(), list.offset(0), list.length(0), size);
            }
            if (item instanceof WithImmediate w) {
                connection.sendWithImm(list, w.immData(), attachment);
            } else if (item instanceof Message m && m.hasImmData()) {
                connection.sendWithImm(list, m.immData(), attachment);
            } else {
                connection.send(list, attachment);
            }
        } catch (RuntimeException e) {
            list.release();
            throw e;
        }
        if (metrics != null) {
            metrics.recordDataSent(remote, size);
        }
        return (int) size;
    }
}
