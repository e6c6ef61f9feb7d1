package dev.ibex.cm.fake;

import dev.ibex.cm.loop.EventLoop;
import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound once per JVM with Ibex's event loop threads marked non-blocking. The fake poller's wait (the
 * loop's one legitimate blocking call; only the wait, not {@code poll}, which dispatches the loop's handlers), the
 * loop's own wait when its poller fails ({@code PollFailures.brokenPollerWait}) and
 * logback's console writes (test logging) are allowed. A provider's poller needs the same: allow its wait method,
 * never the method that calls the ready handler.
 */
public final class LoopBlockHound {
    private static boolean installed;

    private LoopBlockHound() {}

    /** Installs BlockHound the first time it is called in this JVM; later calls do nothing. Any thread. */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        BlockHound.builder()
                .nonBlockingThreadPredicate(p -> p.or(EventLoop::isLoopThread))
                .allowBlockingCallsInside(FakePoller.class.getName(), "await")
                .allowBlockingCallsInside("dev.ibex.cm.loop.PollFailures", "brokenPollerWait")
                .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "writeBytes")
                .install();
        installed = true;
    }
}
