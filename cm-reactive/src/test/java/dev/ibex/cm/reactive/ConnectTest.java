package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.CLIENT_IP;
import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaConnectException.Reason;
import dev.ibex.cm.RejectReason;
import dev.ibex.cm.endpoint.ListenOptions;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** {@link RdmaClient#connect()} and the server's accept policy over soft-roce: success and every failure. */
class ConnectTest {
    static final Duration WAIT = Duration.ofSeconds(15);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String prefix(byte[] data, int n) {
        return new String(Arrays.copyOf(data, n), StandardCharsets.UTF_8);
    }

    @Test
    void connectsWithPrivateDataBothWaysOnTheLoopsAndReportsToHooks() {
        RecordingMetrics serverSide = new RecordingMetrics();
        RecordingMetrics clientSide = new RecordingMetrics();
        List<String> requests = new CopyOnWriteArrayList<>();
        List<RdmaConnection> connected = new CopyOnWriteArrayList<>();
        List<RdmaConnection> disconnected = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer()
                .accept(req -> {
                    requests.add(prefix(req.privateData(), 5) + " from " + req.peerAddress().getAddress()
                            .getHostAddress());
                    return Mono.just(AcceptDecision.accept(bytes("welcome")));
                })
                .metrics(serverSide).observe(serverSide)
                .doOnConnection(connected::add).doOnDisconnection(disconnected::add)
                .bindNow();
        List<String> emittedOn = new CopyOnWriteArrayList<>();
        RdmaConnection c = hosts.rdmaClient(server).privateData(bytes("hello"))
                .metrics(clientSide).observe(clientSide)
                .connect()
                .doOnNext(x -> emittedOn.add(Thread.currentThread().getName()))
                .block(WAIT);

        assertThat(c).isNotNull();
        assertThat(emittedOn).singleElement().asString().startsWith("cli-loop");
        assertThat(requests).containsExactly("hello from " + CLIENT_IP);
        assertThat(prefix(c.peerPrivateData(), 7)).isEqualTo("welcome");
        assertThat(c.isPassive()).isFalse();
        assertThat(c.remoteAddress()).isEqualTo(new InetSocketAddress(SERVER_IP, server.port()));
        assertThat(c.localAddress().getAddress().getHostAddress()).isEqualTo(CLIENT_IP);
        assertThat(c.loop().group()).isSameAs(hosts.client);
        assertThat(c.connection()).isNotNull();
        await().until(() -> connected.size() == 1);
        RdmaConnection s = connected.get(0);
        assertThat(s.isPassive()).isTrue();
        assertThat(prefix(s.peerPrivateData(), 5)).isEqualTo("hello");
        assertThat(server.activeConnections()).isEqualTo(1);

        c.disconnect().block(WAIT);
        assertThat(c.isDisposed()).isTrue();
        await().until(() -> disconnected.size() == 1 && server.activeConnections() == 0);
        assertThat(clientSide.connects).containsExactly("SUCCESS");
        assertThat(serverSide.decisions).containsExactly("ACCEPTED");
        assertThat(clientSide.events).startsWith(ConnectionEvent.Type.ESTABLISHED).endsWith(
                ConnectionEvent.Type.CLOSED);
        await().until(() -> serverSide.events.containsAll(List.of(ConnectionEvent.Type.ESTABLISHED,
                ConnectionEvent.Type.DISCONNECTED, ConnectionEvent.Type.CLOSED)));
        assertThat(clientSide.eventThreads).allMatch(t -> t.startsWith("cli-loop"));
        assertThat(serverSide.eventThreads).allMatch(t -> t.startsWith("srv-loop"));
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void aRejectingPolicyFailsTheConnectWithThePeersPrivateData() {
        RecordingMetrics serverSide = new RecordingMetrics();
        RecordingMetrics clientSide = new RecordingMetrics();
        DisposableServer server = hosts.rdmaServer().metrics(serverSide)
                .accept(req -> Mono.just(AcceptDecision.reject(bytes("go away")))).bindNow();
        StepVerifier.create(hosts.rdmaClient(server).metrics(clientSide).connect())
                .expectErrorSatisfies(e -> {
                    RdmaConnectException x = (RdmaConnectException) e;
                    assertThat(x.reason()).isEqualTo(Reason.REJECTED);
                    assertThat(x.status()).isEqualTo(RdmaConnectException.REJECT_CONSUMER);
                    assertThat(x.isConsumerReject()).isTrue();
                    assertThat(prefix(x.privateData(), 7)).isEqualTo("go away");
                })
                .verify(WAIT);
        assertThat(clientSide.connects).containsExactly("REJECTED");
        assertThat(serverSide.decisions).containsExactly("REJECTED");
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void aPolicyThatFailsOrAnswersNothingRejects() {
        DisposableServer failing = hosts.rdmaServer().accept(req -> Mono.error(new IllegalStateException("no")))
                .bindNow();
        DisposableServer empty = hosts.rdmaServer().accept(req -> Mono.empty()).bindNow();
        DisposableServer throwing = hosts.rdmaServer().accept(req -> {
            throw new IllegalStateException("boom");
        }).bindNow();
        for (DisposableServer s : List.of(failing, empty, throwing)) {
            StepVerifier.create(hosts.rdmaClient(s).connect())
                    .expectErrorSatisfies(e -> assertThat(((RdmaConnectException) e).isConsumerReject()).isTrue())
                    .verify(WAIT);
            s.disposeNow();
        }
        hosts.awaitQuiet();
    }

    @Test
    void aPolicyMayAnswerLaterOnAnotherThread() {
        DisposableServer server = hosts.rdmaServer()
                .accept(req -> Mono.delay(Duration.ofMillis(50)).thenReturn(AcceptDecision.accept()))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).connectNow();
        for (byte b : c.peerPrivateData()) {
            assertThat(b).isZero();
        }
        c.dispose();
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void anUnansweredRequestIsRejectedAfterTheRequestTimeout() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withRequestTimeout(Duration.ofMillis(300)))
                .accept(req -> Mono.never()).bindNow();
        StepVerifier.create(hosts.rdmaClient(server).connect())
                .expectErrorSatisfies(e -> {
                    RdmaConnectException x = (RdmaConnectException) e;
                    assertThat(x.reason()).isEqualTo(Reason.REJECTED);
                    assertThat(x.rejectReason()).isEqualTo(RejectReason.NO_ANSWER);
                    assertThat(x).hasMessageContaining("did not answer the request within its request timeout");
                })
                .verify(WAIT);
        server.disposeNow();
        hosts.awaitQuiet();
    }

    /**
     * Regression: an accept whose private data is too long (197 bytes) was reported to the client as "consumer
     * reject; its private data says why" although none was sent. The client now learns what happened.
     */
    @Test
    void aFailingAcceptPolicyIsReportedToTheClientAsSuch() {
        DisposableServer server = hosts.rdmaServer()
                .accept(req -> Mono.fromCallable(() -> AcceptDecision.accept(new byte[197]))).bindNow();
        StepVerifier.create(hosts.rdmaClient(server).connect())
                .expectErrorSatisfies(e -> {
                    RdmaConnectException x = (RdmaConnectException) e;
                    assertThat(x.isConsumerReject()).isTrue();
                    assertThat(x.rejectReason()).isEqualTo(RejectReason.POLICY_FAILED);
                    assertThat(x).hasMessageContaining("the server's accept policy failed")
                            .hasMessageContaining("at most 196 bytes").hasMessageNotContaining("says why");
                })
                .verify(WAIT);
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void anApplicationRejectWithoutDataSaysThereIsNone() {
        DisposableServer server = hosts.rdmaServer().accept(req -> Mono.just(AcceptDecision.reject())).bindNow();
        StepVerifier.create(hosts.rdmaClient(server).connect())
                .expectErrorSatisfies(e -> {
                    assertThat(((RdmaConnectException) e).rejectReason()).isNull();
                    assertThat(e).hasMessageContaining("with no private data to say why");
                })
                .verify(WAIT);
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void aPortNobodyListensOnIsRejectedWithStatus8() {
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host(SERVER_IP).port(4999).connect())
                .expectErrorSatisfies(e -> {
                    RdmaConnectException x = (RdmaConnectException) e;
                    assertThat(x.reason()).isEqualTo(Reason.REJECTED);
                    assertThat(x.isNoListener()).isTrue();
                })
                .verify(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void aHostThatNeverAnswersIsUnreachable() {
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host(NOBODY_IP).port(4999).connect())
                .expectErrorSatisfies(e -> assertThat(((RdmaConnectException) e).reason()).isEqualTo(
                        Reason.UNREACHABLE))
                .verify(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void theConnectTimeoutEndsTheAttemptWithTimeout() {
        RecordingMetrics m = new RecordingMetrics();
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host(NOBODY_IP).port(4999).metrics(m)
                        .connectTimeout(Duration.ofMillis(150)).connect())
                .expectErrorSatisfies(e -> assertThat(((RdmaConnectException) e).reason()).isEqualTo(Reason.TIMEOUT))
                .verify(WAIT);
        assertThat(m.connects).containsExactly("TIMEOUT");
        hosts.awaitQuiet();
    }

    /** Regression: an unresolvable host hung the connect forever (the failure's report threw on the loop). */
    @Test
    void anUnknownHostIsATypedAddressErrorNotAHang() {
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host("no-such-host.invalid").port(4999)
                        .connectTimeout(Duration.ofSeconds(5)).connect())
                .expectErrorSatisfies(e -> {
                    assertThat(((RdmaConnectException) e).reason()).isEqualTo(Reason.ADDR_ERROR);
                    assertThat(e).hasMessageContaining("unknown host 'no-such-host.invalid'");
                })
                .verify(WAIT);
        StepVerifier.create(RdmaClient.create().runOn(hosts.client)
                        .remoteAddress(InetSocketAddress.createUnresolved("no-such-host.invalid", 4999)).connect())
                .expectErrorSatisfies(e -> assertThat(((RdmaConnectException) e).reason()).isEqualTo(Reason.ADDR_ERROR))
                .verify(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void aTimeoutSaysNothingAnsweredAtTheAddress() {
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host(NOBODY_IP).port(4999)
                        .connectTimeout(Duration.ofMillis(300)).connect())
                .expectErrorSatisfies(e -> assertThat(e).hasMessageContaining("connect timeout of 300 ms")
                        .hasMessageContaining("nothing answered the connection request")
                        .hasMessageContaining(NOBODY_IP + ":4999"))
                .verify(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void anAddressNoDeviceCanReachIsAnAddressError() {
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).host("192.0.2.77").port(4999).connect())
                .expectErrorSatisfies(e -> assertThat(((RdmaConnectException) e).reason()).isEqualTo(
                        Reason.ADDR_ERROR))
                .verify(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void argumentsAreCheckedBeforeAnythingStarts() {
        assertThatThrownBy(() -> RdmaClient.create().privateData(new byte[57]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThatThrownBy(() -> RdmaClient.create().port(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaServer.create().port(70000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AcceptDecision.accept(new byte[197])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> AcceptDecision.reject(new byte[149])).isInstanceOf(IllegalArgumentException.class);
        StepVerifier.create(RdmaClient.create().runOn(hosts.client).connect())
                .expectErrorMatches(e -> e instanceof IllegalStateException && e.getMessage().contains("remoteAddress"))
                .verify(WAIT);
        assertThat(AcceptDecision.accept(bytes("x"))).isInstanceOf(AcceptDecision.Accept.class);
        assertThat(AcceptDecision.reject()).isInstanceOf(AcceptDecision.Reject.class);
    }

    @Test
    void theBlockingConveniencesRefuseToRunOnAnEventLoop() throws Exception {
        DisposableServer server = hosts.rdmaServer().bindNow();
        RdmaClient client = hosts.rdmaClient(server);
        Throwable[] seen = new Throwable[3];
        hosts.client.next().submit(() -> {
            try {
                client.connectNow();
            } catch (Throwable t) {
                seen[0] = t;
            }
            try {
                hosts.rdmaServer().bindNow();
            } catch (Throwable t) {
                seen[1] = t;
            }
            try {
                server.disposeNow();
            } catch (Throwable t) {
                seen[2] = t;
            }
            return null;
        }).get();
        assertThat(seen).allMatch(t -> t instanceof IllegalStateException && t.getMessage().contains("event loop"));
        server.disposeNow();
        hosts.awaitQuiet();
    }
}
