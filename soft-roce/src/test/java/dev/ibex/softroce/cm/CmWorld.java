package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.EventChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/** Real threads for RDMA CM tests: one timer thread, one network thread, hosts on loopback addresses. */
final class CmWorld implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);

    final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cm-timer");
        t.setDaemon(true);
        return t;
    });
    final ExecutorService wire = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "cm-wire");
        t.setDaemon(true);
        return t;
    });
    final MadNetwork net = new MadNetwork(wire);
    final CmTimer timer = CmTimer.of(scheduler);
    final CmTimings timings;
    private final List<CmTestHost> hosts = new ArrayList<>();

    CmWorld(CmTimings timings) {
        this.timings = timings;
    }

    CmWorld() {
        this(CmTimings.FAST);
    }

    CmTestHost host(String... ips) {
        CmTestHost h = new CmTestHost(net, timer, timings, ips);
        hosts.add(h);
        return h;
    }

    /** The next event on {@code ch} (waiting at most {@link #WAIT}). */
    static CmEvent next(EventChannel ch) {
        CmEvent[] got = new CmEvent[1];
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> (got[0] = ch.poll()) != null);
        return got[0];
    }

    /** The next event, which must be of {@code type}. */
    static CmEvent expect(EventChannel ch, CmEventType type) {
        CmEvent e = next(ch);
        if (e.type() != type) {
            throw new AssertionError("expected " + type + " but got " + e + " for " + e.id());
        }
        return e;
    }

    /** Lets in-flight MADs and due timers run for {@code millis} (used only to prove that nothing else happens). */
    void quiet(long millis) {
        try {
            Thread.sleep(millis);
            wire.submit(() -> { }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        for (CmTestHost h : hosts) {
            h.close();
        }
        scheduler.shutdownNow();
        wire.shutdownNow();
    }
}
