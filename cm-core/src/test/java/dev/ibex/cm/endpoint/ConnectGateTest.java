package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.fake.LoopBlockHound;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A storm of connects from one loop queues at its gate instead of running all at once. */
class ConnectGateTest {
    private final ConnectionLoopbackTest h = new ConnectionLoopbackTest();

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    @AfterEach
    void tearDown() {
        h.tearDown();
    }

    @Test
    void atMostTheBoundRunsAtOnceAndEveryQueuedConnectGetsItsTurn() throws Exception {
        h.start(LoopOptions.DEFAULT.withLoops(1).withMaxConcurrentConnects(2));
        List<ConnectionRequest> requests = new ArrayList<>();
        CompletableFuture<Listener> listening = new CompletableFuture<>();
        Listener.listen(h.group.next(), ConnectionLoopbackTest.SERVER, ListenOptions.DEFAULT,
                new ListenerHandler() {
                    @Override
                    public void onConnectionRequest(ConnectionRequest r) {
                        synchronized (requests) {
                            requests.add(r);
                        }
                    }

                    @Override
                    public void onListening(Listener l) {
                        listening.complete(l);
                    }
                });
        listening.get(5, TimeUnit.SECONDS);
        EventLoop loop = h.group.loops().get(0);
        List<Recorder> clients = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Recorder r = new Recorder();
            clients.add(r);
            h.connect(r, null, ConnectionOptions.DEFAULT);
        }
        await().until(() -> requestCount(requests) == 2);
        Thread.sleep(100);
        assertThat(requestCount(requests)).as("only the admitted two reached the server").isEqualTo(2);
        assertThat(ConnectionLoopbackTest.on(loop, () -> ConnectGate.of(loop).waiting())).isEqualTo(8);
        for (int answered = 0; answered < 10; answered++) {
            int n = answered;
            await().until(() -> requestCount(requests) > n);
            synchronized (requests) {
                requests.get(n).accept(new Recorder(), null);
            }
        }
        for (Recorder r : clients) {
            r.established.get(5, TimeUnit.SECONDS);
        }
        assertThat(ConnectionLoopbackTest.on(loop, () -> ConnectGate.of(loop).active())).isZero();
    }

    @Test
    void aQueuedConnectTimesOutSayingItWasQueuedAndAClosedOneNeverStarts() throws Exception {
        h.start(LoopOptions.DEFAULT.withLoops(1).withMaxConcurrentConnects(1));
        h.fabric.blackhole("10.0.0.1"); // address resolution never answers: the one admitted connect holds the gate
        Recorder first = new Recorder();
        h.connect(first, null, ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(30)));
        Recorder queued = new Recorder();
        h.connect(queued, null, ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofMillis(200)));
        Recorder closed = new Recorder();
        Connection c = h.connect(closed, null, ConnectionOptions.DEFAULT);
        c.close();
        Throwable e = queued.error.get(5, TimeUnit.SECONDS);
        assertThat(((RdmaConnectException) e).reason()).isEqualTo(RdmaConnectException.Reason.TIMEOUT);
        assertThat(e).hasMessageContaining("waited behind the loop's other connects");
        assertThat(((RdmaConnectException) closed.error.get(5, TimeUnit.SECONDS)).reason())
                .isEqualTo(RdmaConnectException.Reason.CLOSED);
        assertThat(((dev.ibex.cm.fake.FakeCmId) c.cmId()).calls()).as("never started").noneMatch(x -> x.startsWith("resolveAddr"));
    }

    private static int requestCount(List<ConnectionRequest> requests) {
        synchronized (requests) {
            return requests.size();
        }
    }
}
