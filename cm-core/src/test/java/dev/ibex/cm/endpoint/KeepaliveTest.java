package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The keepalive's judgement of probes, on a real loop: only an answered probe proves the peer alive. */
class KeepaliveTest {
    private EventLoopGroup group;

    @AfterEach
    void tearDown() {
        if (group != null) {
            group.close();
        }
    }

    /** A probe the transport completes with {@code answered} a moment later, on the loop (a flush when false). */
    private static final class Probes implements Keepalive.Probe {
        final boolean answered;
        final AtomicInteger posted = new AtomicInteger();
        final CompletableFuture<ConnectionFailedException> expired = new CompletableFuture<>();
        Keepalive keepalive;
        EventLoop loop;

        Probes(boolean answered) {
            this.answered = answered;
        }

        @Override
        public int outstanding() {
            return 0;
        }

        @Override
        public boolean probe() {
            posted.incrementAndGet();
            loop.schedule(() -> keepalive.probeDone(answered), 1, TimeUnit.MILLISECONDS);
            return true;
        }

        @Override
        public void expired(ConnectionFailedException error) {
            expired.complete(error);
        }
    }

    private Probes start(boolean answered) throws Exception {
        group = EventLoopGroup.of(FakeFabric.loopback(), LoopOptions.DEFAULT.withLoops(1));
        EventLoop loop = group.next();
        Probes p = new Probes(answered);
        Keepalive k = new Keepalive(loop, p, Duration.ofMillis(20), 2, new InetSocketAddress("127.0.0.1", 7471));
        p.keepalive = k;
        p.loop = loop;
        ConnectionLoopbackTest.on(loop, () -> {
            k.start();
            return null;
        });
        return p;
    }

    @Test
    void aFlushedProbeIsNoAnswerAndTheKeepaliveExpires() throws Exception {
        // a QP in error flushes every probe at once: counted as answers, they kept a dead connection up for ever
        Probes p = start(false);
        ConnectionFailedException e = p.expired.get(5, TimeUnit.SECONDS);
        assertThat(e.reason()).isEqualTo(ConnectionFailedException.Reason.KEEPALIVE);
        assertThat(p.posted.get()).as("one probe, unanswered for two intervals").isEqualTo(1);
    }

    @Test
    void answeredProbesKeepTheConnection() throws Exception {
        Probes p = start(true);
        await().until(() -> p.posted.get() >= 4);
        assertThat(p.expired).isNotDone();
    }
}
