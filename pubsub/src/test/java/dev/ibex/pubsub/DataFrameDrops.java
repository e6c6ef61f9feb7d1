package dev.ibex.pubsub;

import dev.ibex.softroce.net.DatagramPredicate;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A soft-roce receive fault rule for pub/sub frames: while {@link #enabled}, drops each frame of {@code kind} with
 * the given probability (seeded), and remembers what it dropped — the ground truth a subscriber's counts must
 * match. Looks into the RoCEv2 packet: BTH (12 bytes) + DETH (8) for a UD SEND, then the pub/sub header.
 */
final class DataFrameDrops implements DatagramPredicate {
    private static final int UD_SEND_ONLY = 0x64;
    private static final int PAYLOAD = 20;

    private final FrameKind kind;
    private final double probability;
    private final SplittableRandom random;
    final ConcurrentSkipListSet<Long> dropped = new ConcurrentSkipListSet<>();
    final AtomicLong seen = new AtomicLong();
    volatile boolean enabled = true;
    /** Drop this sequence number (for DATA) whatever the probability says; 0: none. */
    volatile long always;

    DataFrameDrops(FrameKind kind, double probability, long seed) {
        this.kind = kind;
        this.probability = probability;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public boolean test(int srcIp, int srcPort, int dstIp, int dstPort, MemorySegment p, int length) {
        if (!enabled || length < PAYLOAD + FrameHeader.LENGTH + 4
                || (p.get(ValueLayout.JAVA_BYTE, 0) & 0xFF) != UD_SEND_ONLY) {
            return false;
        }
        MemorySegment frame = p.asSlice(PAYLOAD, length - PAYLOAD - 4);
        if (FrameHeader.kind(frame, (int) frame.byteSize()) != kind) {
            return false;
        }
        long key = kind == FrameKind.DATA ? FrameHeader.sequence(frame) : FrameHeader.heartbeatNumber(frame);
        seen.incrementAndGet();
        boolean drop;
        synchronized (random) {
            drop = random.nextDouble() < probability;
        }
        if (drop || key == always) {
            dropped.add(key);
            return true;
        }
        return false;
    }
}
