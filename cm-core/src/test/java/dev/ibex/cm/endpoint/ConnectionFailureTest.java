package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.fake.LoopBlockHound;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failure paths end in exactly one onError and one onClosed, whatever throws on the way; keepalive finds a silent
 * peer; failures after establishment are typed. On the loopback fake (the harness of {@link ConnectionLoopbackTest}).
 */
class ConnectionFailureTest {
    private final ConnectionLoopbackTest h = new ConnectionLoopbackTest();

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    @AfterEach
    void tearDown() {
        h.tearDown();
    }

    /** Regression: an unresolved host NPE'd while the failure was being described, and nothing was ever reported. */
    @Test
    void anUnknownHostFailsWithATypedAddrErrorInsteadOfHanging() throws Exception {
        h.start();
        Recorder client = new Recorder();
        Connection.connect(h.group.next(), InetSocketAddress.createUnresolved("no-such-host.invalid", 7471), null,
                ConnectionOptions.DEFAULT, client);
        Throwable e = client.error.get(5, TimeUnit.SECONDS);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(e).isInstanceOf(RdmaConnectException.class).hasMessageContaining("unknown host 'no-such-host.invalid'")
                .hasMessageContaining("no-such-host.invalid:7471");
        assertThat(((RdmaConnectException) e).reason()).isEqualTo(RdmaConnectException.Reason.ADDR_ERROR);
        assertThat(client.events()).containsExactly("error", "closed");
    }

    /** A failure whose report throws (here: its message) still ends in one onError and one onClosed. */
    @Test
    void aFailureThatThrowsWhileBeingReportedStillEndsTheConnection() throws Exception {
        h.start();
        h.fabric.refuseResolveAddr(new IllegalStateException() {
            @Override
            public String getMessage() {
                throw new UnsupportedOperationException("a report that throws");
            }
        });
        Recorder client = new Recorder();
        h.connect(client, null, ConnectionOptions.DEFAULT);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsExactly("error", "closed");
        assertThat(client.error.get()).hasMessageContaining("could not release cleanly");
        h.clearUncaught(); // the loop reported the bug, as it should
    }

    @Test
    void aHandlerThrowingInOnErrorStillGetsOnClosedOnce() throws Exception {
        h.start();
        Recorder client = new Recorder() {
            @Override
            public void onError(Connection c, Throwable error) {
                super.onError(c, error);
                throw new IllegalStateException("the application's handler failed");
            }
        };
        Connection.connect(h.group.next(), InetSocketAddress.createUnresolved("no-such-host.invalid", 1), null,
                ConnectionOptions.DEFAULT, client);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsExactly("error", "closed");
        h.clearUncaught();
    }

    @Test
    void theLocalAckTimeoutIsSetBeforeConnectingAndAccepting() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT.withLocalAckTimeout(14), true);
        Connection c = h.connect(new Recorder(), null, ConnectionOptions.DEFAULT.withLocalAckTimeout(12));
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        await().until(() -> c.state() == ConnectionState.ESTABLISHED);
        assertThat(((FakeCmId) c.cmId()).calls()).containsSubsequence("setOption ACK_TIMEOUT 12", "connect");
        assertThat(((FakeCmId) s.cmId()).calls()).containsSubsequence("setOption ACK_TIMEOUT 14", "accept");
        Connection d = h.connect(new Recorder(), null, ConnectionOptions.DEFAULT);
        await().until(() -> d.state() == ConnectionState.ESTABLISHED);
        assertThat(((FakeCmId) d.cmId()).calls()).noneMatch(call -> call.startsWith("setOption"));
    }

    @Test
    void keepaliveFailsAnIdleConnectionWhosePeerFellSilentWithATypedError() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT.withKeepalive(Duration.ofMillis(40), 2));
        client.established.get(5, TimeUnit.SECONDS);
        h.server.established.get(5, TimeUnit.SECONDS);
        await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::keepaliveProbes) >= 2); // answered probes
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);

        long silentAt = System.nanoTime();
        ((FakeQp) c.qp()).peerGoesSilent();
        Throwable e = client.error.get(5, TimeUnit.SECONDS);
        long detectMs = (System.nanoTime() - silentAt) / 1_000_000;
        assertThat(e).isInstanceOf(ConnectionFailedException.class).hasMessageContaining("keepalive");
        assertThat(((ConnectionFailedException) e).reason()).isEqualTo(ConnectionFailedException.Reason.KEEPALIVE);
        // idle → probe after ≤ 1 interval, then 2 unanswered intervals: about 3 × 40 ms (generous for loaded CI)
        assertThat(detectMs).isBetween(80L, 2_000L);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsExactly("established", "error", "closed");
    }

    @Test
    void withoutKeepaliveAnIdleConnectionToASilentPeerStaysUp() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        ((FakeQp) c.qp()).peerGoesSilent();
        Thread.sleep(300);
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(client.events()).containsExactly("established");
    }

    @Test
    void keepaliveDoesNotProbeWhileWorkIsOutstandingNorFailABusyConnection() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT.withKeepalive(Duration.ofMillis(20), 1));
        client.established.get(5, TimeUnit.SECONDS);
        h.server.established.get(5, TimeUnit.SECONDS);
        for (int i = 0; i < 20; i++) {
            ConnectionLoopbackTest.send(c, "m" + i, i);
            Thread.sleep(10);
        }
        await().until(() -> h.server.messages.size() == 20);
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(client.events()).doesNotContain("error");
    }

    @Test
    void aFailedOperationFailsTheConnectionWithATypedReason() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        h.server.established.get(5, TimeUnit.SECONDS);
        ConnectionLoopbackTest.on(c.loop(), () -> {
            dev.ibex.cm.buffer.Buffer b = c.allocate();
            c.read(b, 0, 8, new dev.ibex.cm.buffer.RemoteBuffer(0x1000, 0xBAD, 8), 0, 7);
            return null;
        });
        Throwable e = client.error.get(5, TimeUnit.SECONDS);
        assertThat(e).isInstanceOf(ConnectionFailedException.class);
        ConnectionFailedException f = (ConnectionFailedException) e;
        assertThat(f.reason()).isEqualTo(ConnectionFailedException.Reason.REMOTE_ACCESS);
        assertThat(f.status()).isEqualTo(dev.ibex.cm.spi.WcStatus.REM_ACCESS_ERR);
        assertThat(client.failures.get(0)).isInstanceOf(WorkCompletionException.class)
                .hasMessageStartingWith("READ completed with REM_ACCESS_ERR").hasMessageNotContaining("ibv_poll_cq");
        client.closed.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aPeerThatDiesWhileOnlyACreditUpdateIsOutstandingFailsTheConnectionTyped() throws Exception {
        // the fault matrix's stall: the client had every echo, owed credits for them, and the peer was killed; the
        // credit update alone failed with RETRY_EXC_ERR, its owner ignored the failure and nothing else was left
        // to report it (everything after it flushes)
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        client.hold = true;
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT.withReceiveWindow(4));
        client.established.get(5, TimeUnit.SECONDS);
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        for (int i = 0; i < 4; i++) {
            ConnectionLoopbackTest.send(s, "m" + i, i);
        }
        await().until(() -> client.held.size() == 4);

        ((FakeQp) c.qp()).peerDies();
        java.util.List<dev.ibex.cm.buffer.Buffer> held = new java.util.ArrayList<>(client.held);
        client.held.clear();
        ConnectionLoopbackTest.on(c.loop(), () -> {
            held.forEach(dev.ibex.cm.buffer.Buffer::release); // consumed: the credits go back in an update
            return null;
        });

        Throwable e = client.error.get(5, TimeUnit.SECONDS);
        assertThat(e).isInstanceOf(ConnectionFailedException.class);
        assertThat(((ConnectionFailedException) e).reason())
                .isEqualTo(ConnectionFailedException.Reason.PEER_UNRESPONSIVE);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsSubsequence("established", "error", "closed")
                .containsOnlyOnce("error", "closed");
    }
}
