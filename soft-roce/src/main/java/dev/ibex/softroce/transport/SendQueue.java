package dev.ibex.softroce.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A QP's send queue: a ring of {@link SendWqe}s with three positions — the producer's (the posting thread publishes
 * WQEs), the requester's (next WQE to transmit, send task only) and the consumer's (oldest WQE not yet completed;
 * the completer advances it and the poster reads it to know the ring has room). Single producer, single consumer:
 * no lock.
 *
 * <p>The ring starts at {@value #INITIAL} slots and doubles, up to the capacity, only when the producer finds it
 * full: a QP holds as many WQEs as it ever had outstanding, not its whole {@code max_send_wr} (10,000 mostly idle
 * connections held 470 MB of WQEs that were never posted). Growing copies the references of every position from
 * the consumer's on, so an outstanding WQE is the same object in the old ring and the new one, and the new ring is
 * published (volatile) before the producer index that first uses it (release): a reader at a published position
 * finds its WQE in whichever ring it reads. Once grown to what its traffic needs, a QP allocates nothing more.
 */
public final class SendQueue {
    /** Slots a new send queue starts with. */
    static final int INITIAL = 8;

    private volatile SendWqe[] ring;
    private final int capacity;
    private final int maxSlots;
    private final int maxSge;
    private final int maxInline;
    private final Arena arena;
    private final AtomicLong producer = new AtomicLong();
    private final AtomicLong consumer = new AtomicLong();

    SendQueue(int capacity, int maxSge, int maxInline, Arena arena) {
        this.maxSlots = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.capacity = capacity;
        this.maxSge = maxSge;
        this.maxInline = maxInline;
        this.arena = arena;
        this.ring = new SendWqe[Math.min(INITIAL, maxSlots)];
    }

    /** Producer: the WQE at position {@code p}, made (and the ring grown) on first need. */
    private SendWqe slot(long p) {
        SendWqe[] r = ring;
        if (p - consumer.getAcquire() >= r.length) {
            r = grow(r);
        }
        int i = (int) (p & (r.length - 1));
        SendWqe w = r[i];
        if (w == null) {
            w = r[i] = new SendWqe(maxSge, maxInline > 0 ? arena.allocate(maxInline, 8) : MemorySegment.NULL);
        }
        return w;
    }

    private SendWqe[] grow(SendWqe[] old) {
        SendWqe[] r = new SendWqe[old.length * 2];
        long from = consumer.getAcquire();
        for (long pos = from; pos < from + old.length; pos++) {
            r[(int) (pos & (r.length - 1))] = old[(int) (pos & (old.length - 1))];
        }
        ring = r;
        return r;
    }

    /** Slots the ring has now (diagnostics and tests). */
    int slots() {
        return ring.length;
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
        return slot(p);
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
        SendWqe[] r = ring;
        return r[(int) (index & (r.length - 1))];
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
