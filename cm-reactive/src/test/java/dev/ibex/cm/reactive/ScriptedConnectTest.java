package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaConnectException.Reason;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ResourceKind;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

/**
 * Connect outcomes the soft provider cannot produce on demand, with the CM events scripted on cm-core's fake: each
 * error event in each waiting state fails the {@code Mono} with its typed reason, and cancelling in each state
 * releases the id and the QP.
 */
class ScriptedConnectTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final InetSocketAddress PEER = new InetSocketAddress("10.0.1.1", 7471);

    final FakeHosts hosts = FakeHosts.scripted();

    @AfterEach
    void close() {
        hosts.close();
    }

    enum Stage {
        ADDR_RESOLVING, ROUTE_RESOLVING, CONNECTING
    }

    /** Drives a connect to {@code stage}; returns its id. */
    FakeCmId driveTo(Stage stage) {
        FakeCmId id = hosts.idAfter("resolveAddr");
        if (stage == Stage.ADDR_RESOLVING) {
            return id;
        }
        id.inject(CmEventType.ADDR_RESOLVED, 0, null);
        hosts.idAfter("resolveRoute");
        if (stage == Stage.ROUTE_RESOLVING) {
            return id;
        }
        id.inject(CmEventType.ROUTE_RESOLVED, 0, null);
        hosts.idAfter("connect");
        return id;
    }

    RdmaClient client() {
        return RdmaClient.create().runOn(hosts.group).remoteAddress(PEER);
    }

    @Test
    void theErrorEventOfEachStageFailsWithItsReason() {
        record Case(Stage stage, CmEventType event, Reason reason) {}
        for (Case c : new Case[] {
                new Case(Stage.ADDR_RESOLVING, CmEventType.ADDR_ERROR, Reason.ADDR_ERROR),
                new Case(Stage.ROUTE_RESOLVING, CmEventType.ROUTE_ERROR, Reason.ROUTE_ERROR),
                new Case(Stage.CONNECTING, CmEventType.CONNECT_ERROR, Reason.CONNECT_ERROR),
                new Case(Stage.CONNECTING, CmEventType.UNREACHABLE, Reason.UNREACHABLE),
                new Case(Stage.CONNECTING, CmEventType.DISCONNECTED, Reason.DISCONNECTED),
                new Case(Stage.ROUTE_RESOLVING, CmEventType.DEVICE_REMOVAL, Reason.DEVICE_REMOVAL),
                new Case(Stage.CONNECTING, CmEventType.ADDR_CHANGE, Reason.ADDR_CHANGE)}) {
            StepVerifier.create(client().connect())
                    .then(() -> driveTo(c.stage()).inject(c.event(), -110, null))
                    .expectErrorSatisfies(e -> {
                        assertThat(e).as(c.toString()).isInstanceOf(RdmaConnectException.class);
                        assertThat(((RdmaConnectException) e).reason()).as(c.toString()).isEqualTo(c.reason());
                    })
                    .verify(WAIT);
            hosts.awaitNoEndpoints();
        }
    }

    @Test
    void aRejectCarriesThePeersPrivateData() {
        StepVerifier.create(client().connect())
                .then(() -> driveTo(Stage.CONNECTING).inject(CmEventType.REJECTED, 28, "full".getBytes()))
                .expectErrorSatisfies(e -> {
                    RdmaConnectException x = (RdmaConnectException) e;
                    assertThat(x.isConsumerReject()).isTrue();
                    assertThat(new String(x.privateData(), 0, 4)).isEqualTo("full");
                })
                .verify(WAIT);
        hosts.awaitNoEndpoints();
    }

    @ParameterizedTest
    @EnumSource(Stage.class)
    void cancellingInEachStageReleasesTheIdAndTheQp(Stage stage) {
        RecordingMetrics m = new RecordingMetrics();
        Disposable attempt = client().metrics(m).connect().subscribe();
        FakeCmId id = driveTo(stage);
        assertThat(hosts.fabric.count(ResourceKind.QUEUE_PAIR)).isEqualTo(stage == Stage.CONNECTING ? 1 : 0);
        attempt.dispose();
        hosts.awaitNoEndpoints();
        assertThat(id.isClosed()).isTrue();
        assertThat(m.connects).containsExactly("CANCELLED");
    }

    @Test
    void establishedAfterCancellationIsClosedAtOnce() {
        Disposable attempt = client().connect().subscribe();
        FakeCmId id = driveTo(Stage.CONNECTING);
        attempt.dispose();
        id.inject(CmEventType.ESTABLISHED, 0, null); // raced in: nobody wants the connection any more
        hosts.awaitNoEndpoints();
    }
}
