package dev.ibex.softroce.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Where a receive thread parks a copy of a packet when the QP task it belongs to is busy on another thread (the
 * common case processes the packet in place, with no copy). A bounded multi-producer single-consumer ring of
 * packet-sized slots, allocated on first use; a full inbox drops the packet, which the transport recovers like
 * any loss.
 *
 * <p>Why not cm-core's {@code MpscQueue}: that queue carries references, and a packet would then need an object
 * (or a slot index from a second queue) per parked packet. Here the slot is the packet: a producer claims a slot,
 * copies the bytes into it and publishes it; the consumer reads it in place and releases it. The protocol is the
 * same as {@code MpscQueue}'s (Vyukov's bounded queue): slot {@code i} has a sequence number; ticket {@code t}'s
 * slot {@code t mod slots} is free for it when the sequence equals {@code t}; the producer claims it with a CAS on
 * the tail (so no two producers write one slot), writes bytes, length and addresses, then publishes with a release
 * store of {@code t + 1}; the consumer's acquire load of {@code head + 1} makes all of that visible before it reads
 * the slot, and its release store of {@code head + slots} after reading it frees the slot for the next lap (so no
 * producer overwrites a slot being read). A sequence below the ticket means the previous lap's packet is still
 * there: full, the packet is dropped and counted. Producers of one thread publish in ticket order, so a thread's
 * packets come out in the order it offered them. {@code PacketInboxTest} checks each of these under four producer
 * threads and a consumer (no loss, no mixed bytes, per-thread order, accepted + dropped = offered).
 *
 * <p>Threading: {@link #offer} from any receive thread; everything else from the thread running the QP task.
 */
final class PacketInbox {
    private final int slots;
    private final int slotSize;
    private final AtomicLong tail = new AtomicLong();
    private long head; // consumer only
    private volatile AtomicLongArray sequence;
    private volatile MemorySegment memory;
    private int[] lengths;
    private int[] sources;
    private int[] destinations;
    /** Producers on several receive threads drop at once: an atomic count, not a {@code volatile ++}. */
    private final AtomicLong dropped = new AtomicLong();

    PacketInbox(int slots, int slotSize) {
        if (slots < 2) { // with one slot "written at t" and "free again for t + slots" are the same sequence number
            throw new IllegalArgumentException("an inbox needs at least 2 slots, got " + slots);
        }
        this.slots = slots;
        this.slotSize = slotSize;
    }

    private synchronized void allocate() {
        if (memory == null) {
            lengths = new int[slots];
            sources = new int[slots];
            destinations = new int[slots];
            AtomicLongArray seq = new AtomicLongArray(slots);
            for (int i = 0; i < slots; i++) {
                seq.set(i, i);
            }
            sequence = seq;
            memory = Arena.ofAuto().allocate((long) slots * slotSize, 8);
        }
    }

    /**
     * Copies a packet in, with the addresses it came from and went to; {@code false} (and the packet is dropped)
     * when full or too big.
     */
    boolean offer(MemorySegment src, long offset, int length, int srcIp, int dstIp) {
        if (length > slotSize) {
            dropped.incrementAndGet();
            return false;
        }
        if (memory == null) {
            allocate();
        }
        AtomicLongArray seq = sequence;
        long t;
        int idx;
        for (;;) {
            t = tail.get();
            idx = (int) (t % slots);
            long dif = seq.getAcquire(idx) - t;
            if (dif == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    break;
                }
            } else if (dif < 0) {
                dropped.incrementAndGet();
                return false;
            }
            Thread.onSpinWait();
        }
        MemorySegment.copy(src, offset, memory, (long) idx * slotSize, length);
        lengths[idx] = length;
        sources[idx] = srcIp;
        destinations[idx] = dstIp;
        seq.setRelease(idx, t + 1);
        return true;
    }

    /** Whether a packet is waiting. Consumer only. */
    boolean isEmpty() {
        AtomicLongArray seq = sequence;
        return seq == null || seq.getAcquire((int) (head % slots)) != head + 1;
    }

    /** Consumer: the next packet's offset in {@link #memory()}, or -1. Follow with {@link #length()} and {@link #release()}. */
    long peekOffset() {
        if (isEmpty()) {
            return -1;
        }
        return (head % slots) * slotSize;
    }

    int length() {
        return lengths[(int) (head % slots)];
    }

    int srcIp() {
        return sources[(int) (head % slots)];
    }

    int dstIp() {
        return destinations[(int) (head % slots)];
    }

    MemorySegment memory() {
        return memory;
    }

    void release() {
        int idx = (int) (head % slots);
        sequence.setRelease(idx, head + slots);
        head++;
    }

    /** Drops everything queued and returns how many packets that was. Consumer only. */
    int clear() {
        int n = 0;
        while (peekOffset() >= 0) {
            release();
            n++;
        }
        return n;
    }

    long dropped() {
        return dropped.get();
    }
}
