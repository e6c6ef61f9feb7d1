package dev.ibex.cm.loop;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.LoopBlockHound;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A loop whose fabric is closed under it (as when a provider goes away with the group still open) keeps serving its
 * tasks and closes, instead of spinning on a poller that fails at once. Found by the fault matrix (benchmarks
 * {@code FaultMatrix}, "peer's device closed"): the server's loop logged "polling failed" some 14,000 times in two
 * seconds, a core busy until the group was closed.
 */
class BrokenPollerTest {

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install(); // the loop's fallback wait is allowed like the poller's, nothing else
    }

    @Test
    void aLoopWhoseFabricWasClosedUnderItNeitherSpinsNorStopsServingTasks() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(EventLoop.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        log.addAppender(lines);
        FakeFabric fabric = FakeFabric.loopback();
        EventLoopGroup group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(1).withThreadName("broken"));
        try {
            fabric.close(); // the poller goes with it
            group.next().execute(() -> { }); // the loop wakes up and polls again
            Thread.sleep(500);
            long failures = lines.list.stream().filter(e -> e.getFormattedMessage().startsWith("polling on")).count();
            assertThat(failures).as("poll failures reported in 500 ms").isBetween(1L, 12L);

            CompletableFuture<String> ran = group.next().submit(() -> "ran");
            assertThat(ran.get(5, TimeUnit.SECONDS)).isEqualTo("ran");
        } finally {
            CompletableFuture<Void> closed = CompletableFuture.runAsync(group::close);
            closed.get(Duration.ofSeconds(20).toMillis(), TimeUnit.MILLISECONDS);
            log.detachAppender(lines);
        }
    }
}
