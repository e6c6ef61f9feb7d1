package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.verbs.ffi.IbVerbs;
import dev.ibex.verbs.ffi.struct.IbvCq;
import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_cq}, whose {@code cq_context} is this object's handle.
 *
 * <p>Notification accounting: every event {@link NativeCompletionChannel#poll()} returns for this CQ is counted,
 * {@link #ackEvents} acknowledges them in batches ({@code ibv_ack_cq_events} takes a mutex), and
 * {@link #close()} acknowledges whatever is left before {@code ibv_destroy_cq}, which would otherwise wait
 * forever. Acknowledging more than was received would make the destroy wait forever too, so it is refused.
 * An event that arrives while the CQ is closing is acknowledged on the spot.
 */
final class NativeCompletionQueue extends NativeResource implements CompletionQueue {
    private final NativeDeviceContext device;
    private final NativeCompletionChannel channel;
    private final long handle;
    private final MemorySegment cq;
    private final int capacity;
    private volatile Object context;
    private long received;
    private long acked;

    NativeCompletionQueue(NativeDeviceContext device, int minEntries, NativeCompletionChannel channel, int vector) {
        super(device.fabric);
        this.device = device;
        this.channel = channel;
        this.handle = fabric.handles().register(this);
        try {
            this.cq = IbVerbs.createCq(device.segment(), minEntries, MemorySegment.ofAddress(handle),
                    channel == null ? MemorySegment.NULL : channel.segment(), vector);
        } catch (RuntimeException e) {
            fabric.handles().release(handle);
            throw e;
        }
        this.capacity = IbvCq.cqe(cq);
        tracked();
    }

    NativeDeviceContext device() {
        return device;
    }

    MemorySegment segment() {
        return cq;
    }

    /** Counts an event taken from the channel; false (and acknowledged at once) when the CQ is closing. */
    synchronized boolean eventReceived() {
        if (!isOpen()) {
            IbVerbs.ackCqEvents(cq, 1);
            return false;
        }
        received++;
        return true;
    }

    @Override
    String describe() {
        return "CQ of " + capacity + " entries";
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
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
    public int poll(CompletionBatch batch) {
        ensureOpen();
        return BatchPosting.poll(device.ops(), cq, batch);
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        ensureOpen();
        BatchPosting.requestNotify(device.ops(), cq, solicitedOnly);
    }

    @Override
    public synchronized void ackEvents(int count) {
        ensureOpen();
        long outstanding = received - acked;
        if (count < 0 || count > outstanding) {
            throw new IllegalArgumentException("cannot acknowledge " + count + " events: " + outstanding
                    + " are unacknowledged");
        }
        if (count > 0) {
            IbVerbs.ackCqEvents(cq, count);
            acked += count;
        }
    }

    /** Events received and not yet acknowledged. */
    synchronized long unacknowledged() {
        return received - acked;
    }

    @Override
    void destroy() {
        synchronized (this) {
            long rest = received - acked;
            if (rest > 0) {
                IbVerbs.ackCqEvents(cq, (int) rest);
                acked += rest;
            }
        }
        IbVerbs.destroyCq(cq);
        fabric.handles().release(handle);
    }
}
