package dev.ibex.pubsub;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publisher epochs: the start time in nanoseconds since 1970, made strictly increasing within the JVM, so a
 * publisher re-created on the same topic is always a new (and newer) epoch. Thread-safe.
 */
final class Epochs {
    private static final AtomicLong LAST = new AtomicLong();

    private Epochs() {}

    static long next() {
        Instant now = Instant.now();
        long wall = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        return LAST.updateAndGet(last -> Math.max(last + 1, wall));
    }
}
