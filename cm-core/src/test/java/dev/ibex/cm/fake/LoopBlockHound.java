package dev.ibex.cm.fake;

import dev.ibex.cm.loop.EventLoop;
import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound once per JVM with Ibex's event loop threads marked non-blocking. The fake poller's park
 * (the loop's one legitimate wait) and logback's console writes (test logging) are allowed.
 */
public final class LoopBlockHound {
    private static boolean installed;

    private LoopBlockHound() {}

    public static synchronized void install() {
        if (installed) {
            return;
        }
        BlockHound.builder()
                .nonBlockingThreadPredicate(p -> p.or(EventLoop::isLoopThread))
                .allowBlockingCallsInside(FakePoller.class.getName(), "poll")
                .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "writeBytes")
                .install();
        installed = true;
    }
}
