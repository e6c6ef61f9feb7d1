package dev.ibex.cm.endpoint;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A listener's half-open connections — requested, or accepted and waiting for the handshake to complete —
 * bounded in all and per source address, as a SYN-flood defence bounds them: requests beyond either bound are
 * refused before anything is created for them, so a flood from some addresses holds a bounded amount of memory
 * and cannot starve clients from others. Thread-safe: a connection leaves its half-open state on whatever loop
 * it moved to.
 */
final class HalfOpen {
    private final int max;
    private final int maxPerSource;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> bySource = new ConcurrentHashMap<>();
    private final LongAdder refused = new LongAdder();

    HalfOpen(int max, int maxPerSource) {
        this.max = max;
        this.maxPerSource = maxPerSource;
    }

    /**
     * Admits one more request from {@code source}; returns {@code null} when admitted (the caller must then
     * {@link #exit} exactly once), else why it was refused.
     */
    String enter(InetAddress source) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            refused.increment();
            return max + " half-open connections at this listener";
        }
        AtomicInteger n = bySource.computeIfAbsent(source, a -> new AtomicInteger());
        if (n.incrementAndGet() > maxPerSource) {
            n.decrementAndGet();
            open.decrementAndGet();
            refused.increment();
            return maxPerSource + " half-open connections from " + source.getHostAddress();
        }
        return null;
    }

    /** The connection from {@code source} is established or gone. */
    void exit(InetAddress source) {
        open.decrementAndGet();
        bySource.computeIfPresent(source, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    int open() {
        return open.get();
    }

    int open(InetAddress source) {
        AtomicInteger n = bySource.get(source);
        return n == null ? 0 : n.get();
    }

    long refused() {
        return refused.sum();
    }
}
