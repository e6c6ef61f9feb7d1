package dev.ibex.micrometer;

import java.util.HashSet;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The drops of every endpoint that shares a set of tags, as one monotonic count: the live endpoints' own counts
 * ({@code drops()}, read when the registry is scraped) plus the final counts of the closed ones, so the sum never goes
 * down when an endpoint closes. Thread-safe (one lock, taken on open, close and scrape only: never per datagram).
 */
final class DropSum {
    private final Set<LongSupplier> live = new HashSet<>();
    private long retired;

    synchronized void open(LongSupplier drops) {
        live.add(drops);
    }

    /** Moves the endpoint's final count into the retired total (under the lock: a scrape sees it once). */
    synchronized void close(LongSupplier drops) {
        if (live.remove(drops)) {
            retired += drops.getAsLong();
        }
    }

    synchronized double read() {
        long sum = retired;
        for (LongSupplier s : live) {
            sum += s.getAsLong();
        }
        return sum;
    }
}
