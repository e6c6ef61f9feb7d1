package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.RecvBatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A QP's own receive queue: a single-producer (the posting thread) single-consumer (the QP's receive task) ring of
 * preallocated {@link RecvWqe}s. The consumer peeks the head while a multi-packet message fills it and advances when
 * the message completes. No lock, no allocation.
 */
public final class RecvQueue {
    private final RecvWqe[] ring;
    private final int mask;
    private final int capacity;
    private final AtomicLong tail = new AtomicLong(); // written by the producer
    private final AtomicLong head = new AtomicLong(); // written by the consumer

    RecvQueue(int capacity, int maxSge) {
        int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.ring = new RecvWqe[size];
        for (int i = 0; i < size; i++) {
            ring[i] = new RecvWqe(maxSge);
        }
        this.mask = size - 1;
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** Producer: appends WR {@code i} of {@code batch}; {@code false} when full. */
    boolean offer(RecvBatch batch, int i, int numSge) {
        long t = tail.get();
        if (t - head.getAcquire() >= capacity) {
            return false;
        }
        ring[(int) (t & mask)].copyFrom(batch, i, numSge);
        tail.setRelease(t + 1);
        return true;
    }

    /** Consumer: the oldest WQE, or {@code null}. */
    public RecvWqe peek() {
        long h = head.get();
        return h == tail.getAcquire() ? null : ring[(int) (h & mask)];
    }

    /** Consumer: removes the WQE {@link #peek()} returned. */
    public void advance() {
        head.setRelease(head.get() + 1);
    }

    /** Consumer: forgets everything (QP reset). */
    void clear() {
        head.setRelease(tail.getAcquire());
    }

    public int size() {
        return (int) (tail.get() - head.get());
    }
}
