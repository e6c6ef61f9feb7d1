package dev.ibex.softroce.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A QP's send queue: a ring of preallocated {@link SendWqe}s with three positions — the producer's (the posting
 * thread publishes WQEs), the requester's (next WQE to transmit, send task only) and the consumer's (oldest WQE not
 * yet completed; the completer advances it and the poster reads it to know the ring has room). Single producer,
 * single consumer: no lock, no allocation.
 */
public final class SendQueue {
    private final SendWqe[] ring;
    private final int mask;
    private final int capacity;
    private final AtomicLong producer = new AtomicLong();
    private final AtomicLong consumer = new AtomicLong();

    SendQueue(int capacity, int maxSge, int maxInline, Arena arena) {
        int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.ring = new SendWqe[size];
        MemorySegment inline = maxInline > 0 ? arena.allocate((long) size * maxInline, 8) : MemorySegment.NULL;
        for (int i = 0; i < size; i++) {
            ring[i] = new SendWqe(maxSge, maxInline > 0 ? inline.asSlice((long) i * maxInline, maxInline) : inline);
        }
        this.mask = size - 1;
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** Producer: the WQE to fill next, or {@code null} when the queue is full. */
    SendWqe claim() {
        long p = producer.get();
        if (p - consumer.getAcquire() >= capacity) {
            return null;
        }
        return ring[(int) (p & mask)];
    }

    /** Producer: publishes the WQE {@link #claim()} returned. */
    void publish() {
        producer.setRelease(producer.get() + 1);
    }

    /** Position one past the last published WQE. */
    public long producerIndex() {
        return producer.getAcquire();
    }

    /** Position of the oldest WQE not yet completed. */
    public long consumerIndex() {
        return consumer.get();
    }

    /** The WQE at position {@code index}. */
    public SendWqe at(long index) {
        return ring[(int) (index & mask)];
    }

    /** Consumer: the oldest uncompleted WQE has been completed (or flushed). */
    public void advanceConsumer() {
        consumer.setRelease(consumer.get() + 1);
    }

    /** Consumer: forgets every WQE (QP reset). */
    void clear() {
        consumer.setRelease(producer.getAcquire());
    }

    public int size() {
        return (int) (producer.get() - consumer.get());
    }
}
