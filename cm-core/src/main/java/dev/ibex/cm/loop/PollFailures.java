package dev.ibex.cm.loop;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loop's failing poller. A poller that fails fails again at once — its fabric was closed under the loop — so the
 * loop must not spin on it: the 1st, 2nd, 4th, 8th … failure is reported, and the loop waits as the poll would have,
 * at most {@value #BROKEN_POLL_MS} ms, so tasks and timers (closing the group among them) still run.
 *
 * <p>Threading: the loop thread only.
 */
final class PollFailures {
    private static final Logger LOG = LoggerFactory.getLogger(EventLoop.class); // the loop's log category
    private static final long BROKEN_POLL_MS = 10;

    private final EventLoop loop;
    private long count;

    PollFailures(EventLoop loop) {
        this.loop = loop;
    }

    /** The poll with {@code timeoutNanos} (-1: none) failed with {@code e}: reports it, then waits in its place. */
    void failed(RuntimeException e, long timeoutNanos) {
        count++;
        if (Long.bitCount(count) == 1) {
            LOG.warn("polling on {} failed ({} time(s) so far): {}", loop, count, e.toString());
        }
        long wait = TimeUnit.MILLISECONDS.toNanos(BROKEN_POLL_MS);
        if (timeoutNanos >= 0) {
            wait = Math.min(wait, timeoutNanos);
        }
        if (wait > 0) {
            brokenPollerWait(wait);
        }
    }

    /** The poller's wait when the poller cannot wait (a test's BlockHound allows this method, as the poller's wait). */
    private void brokenPollerWait(long nanos) {
        LockSupport.parkNanos(loop, nanos);
    }
}
