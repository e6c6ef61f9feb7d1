package dev.ibex.pubsub;

import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * A publisher's rate limit: each message may leave one interval after the previous one (a virtual schedule, so
 * short waits are not rounded away: a message that need not wait long enough to be worth a timer goes at once and
 * the next one waits the longer). Shared by every {@code publish} of the publisher. Thread-safe.
 */
final class RatePacer {
    /** Waits shorter than this are not worth a timer. */
    private static final long MIN_WAIT_NANOS = 50_000;

    private final long intervalNanos;
    private long next;

    RatePacer(double messagesPerSecond) {
        if (!(messagesPerSecond > 0) || messagesPerSecond > 1e9) {
            throw new IllegalArgumentException("a rate limit is in (0, 1e9] messages per second, not "
                    + messagesPerSecond);
        }
        this.intervalNanos = Math.max(1, Math.round(1e9 / messagesPerSecond));
    }

    /** Completes when the next message may go (at once, without allocating, when it need not wait). */
    Mono<Long> permit() {
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            if (next - now < 0) {
                next = now; // idle: no credit is saved up, so no burst follows a pause
            }
            wait = next - now;
            next += intervalNanos;
        }
        return wait < MIN_WAIT_NANOS ? Mono.empty() : Mono.delay(Duration.ofNanos(wait));
    }
}
