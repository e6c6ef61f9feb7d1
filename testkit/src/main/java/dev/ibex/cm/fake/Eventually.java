package dev.ibex.cm.fake;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/** Awaitility tuned for in-memory tests: check at once and then every millisecond, give up after 10 s. */
public final class Eventually {
    private Eventually() {}

    /**
     * Starts a bounded wait; any thread may call it.
     *
     * @return an Awaitility condition factory polling every millisecond for at most 10 s
     */
    public static ConditionFactory await() {
        return Awaitility.await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(1));
    }
}
