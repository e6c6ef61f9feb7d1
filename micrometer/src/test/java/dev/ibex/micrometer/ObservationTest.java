package dev.ibex.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Connects and accepted connections as Micrometer Observations on soft-roce loopback: each is the child of the
 * observation in its subscriber's Reactor {@code Context}, ends with its status, carries only bounded low-cardinality
 * keys, and the server's handler runs under the server's observation.
 */
class ObservationTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final Hosts hosts = new Hosts();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ObservationRegistry observations = ObservationRegistry.create();
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    ObservationTest() {
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
    }

    @AfterEach
    void close() {
        RdmaObservations.registry(ObservationRegistry.NOOP);
        hosts.close();
    }

    private MicrometerRdmaMetricsRecorder recorder(String component) {
        return MicrometerRdmaMetricsRecorder.create(meters, component, false).observationRegistry(observations);
    }

    private Observation.Context stoppedNamed(String name, String status) {
        await().atMost(WAIT).until(() -> stopped.stream().anyMatch(c -> c.getName().equals(name)
                && status.equals(c.getLowCardinalityKeyValue("status").getValue())));
        return stopped.stream().filter(c -> c.getName().equals(name)
                && status.equals(c.getLowCardinalityKeyValue("status").getValue())).findFirst().orElseThrow();
    }

    @Test
    void connectAndAcceptAreObservationsUnderTheSubscribersObservation() {
        Observation serverParent = Observation.start("app.server.start", observations);
        AtomicReference<Object> handlerSaw = new AtomicReference<>();
        DisposableServer s = RdmaServer.create().runOn(hosts.server).host(Hosts.SERVER_IP).port(0)
                .metrics(recorder("server"))
                .accept(req -> Mono.just(new String(req.privateData(), StandardCharsets.UTF_8).startsWith("no")
                        ? AcceptDecision.reject() : AcceptDecision.accept()))
                .handle(c -> Mono.deferContextual(ctx -> {
                    handlerSaw.set(ctx.getOrDefault(RdmaObservations.CONTEXT_KEY, null));
                    return Mono.never();
                }))
                .bind().contextWrite(Context.of(RdmaObservations.CONTEXT_KEY, serverParent)).block(WAIT);
        serverParent.stop();

        Observation clientParent = Observation.start("app.request", observations);
        RdmaClient client = RdmaClient.create().runOn(hosts.client)
                .remoteAddress(new InetSocketAddress(Hosts.SERVER_IP, s.port())).connectTimeout(Duration.ofSeconds(10))
                .metrics(recorder("client"));
        RdmaConnection c = client.connect().contextWrite(Context.of(RdmaObservations.CONTEXT_KEY, clientParent))
                .block(WAIT);

        Observation.Context connect = stoppedNamed(RdmaObservations.CLIENT_CONNECT, "SUCCESS");
        assertThat(connect.getParentObservation()).isSameAs(clientParent);
        assertThat(connect.getContextualName()).isEqualTo("rdma connect");
        assertThat(connect.getLowCardinalityKeyValue("provider").getValue()).isEqualTo("soft-roce");
        assertThat(connect.getHighCardinalityKeyValue("net.peer.address").getValue()).isEqualTo(Hosts.SERVER_IP);
        assertThat(connect.getHighCardinalityKeyValue("net.peer.port").getValue()).isEqualTo(
                Integer.toString(s.port()));
        assertThat(connect.getError()).isNull();

        Observation.Context accepted = stoppedNamed(RdmaObservations.SERVER_CONNECTION, "SUCCESS");
        assertThat(accepted.getParentObservation()).isSameAs(serverParent);
        assertThat(accepted.getHighCardinalityKeyValue("net.peer.address").getValue()).isEqualTo(Hosts.CLIENT_IP);
        // the handler runs under the server's observation: what it observes is the connection's child
        await().atMost(WAIT).until(() -> handlerSaw.get() != null);
        assertThat(((Observation) handlerSaw.get()).getContext()).isSameAs(accepted);

        // a refused connect: both sides end REJECTED, the client's with the typed error
        assertThatThrownBy(() -> client.privateData("no".getBytes(StandardCharsets.UTF_8)).connect()
                .contextWrite(Context.of(RdmaObservations.CONTEXT_KEY, clientParent)).block(WAIT))
                .isInstanceOf(RdmaConnectException.class);
        Observation.Context rejected = stoppedNamed(RdmaObservations.CLIENT_CONNECT, "REJECTED");
        assertThat(rejected.getParentObservation()).isSameAs(clientParent);
        assertThat(rejected.getError()).isInstanceOf(RdmaConnectException.class);
        assertThat(stoppedNamed(RdmaObservations.SERVER_CONNECTION, "REJECTED").getError()).isNull();
        clientParent.stop();

        // bounded: the only low-cardinality keys are status and provider (the peer is high-cardinality)
        assertThat(stopped).filteredOn(x -> x.getName().startsWith("ibex.")).allSatisfy(x -> assertThat(
                x.getLowCardinalityKeyValues().stream().map(KeyValue::getKey).toList())
                .containsExactlyInAnyOrder("status", "provider"));
        c.dispose();
        s.disposeNow(WAIT);
    }

    @Test
    void withoutAParentInTheContextTheConnectIsARootAndNoopObservesNothing() {
        DisposableServer s = RdmaServer.create().runOn(hosts.server).host(Hosts.SERVER_IP).port(0).bindNow(WAIT);
        RdmaClient client = RdmaClient.create().runOn(hosts.client)
                .remoteAddress(new InetSocketAddress(Hosts.SERVER_IP, s.port())).connectTimeout(Duration.ofSeconds(10));
        client.metrics(recorder("client")).connectNow().dispose();
        assertThat(stoppedNamed(RdmaObservations.CLIENT_CONNECT, "SUCCESS").getParentObservation()).isNull();

        stopped.clear();
        // metrics(true) observes into RdmaObservations.registry(): NOOP unless set
        client.metrics(true).connectNow().dispose();
        assertThat(stopped).isEmpty();
        RdmaObservations.registry(observations);
        client.metrics(true).connectNow().dispose();
        stoppedNamed(RdmaObservations.CLIENT_CONNECT, "SUCCESS");
        assertThat(MicrometerRdmaMetricsRecorder.create(meters, "client", false)
                .observeConnect(null, "soft-roce", Context.empty())).isNotNull();
        RdmaObservations.registry(ObservationRegistry.NOOP);
        assertThat(MicrometerRdmaMetricsRecorder.create(meters, "client", false)
                .observeConnect(null, "soft-roce", Context.empty())).isNull();
        s.disposeNow(WAIT);
    }

    @Test
    void theContextKeyIsMicrometersObservationKey() {
        assertThat(RdmaObservations.CONTEXT_KEY).isEqualTo(
                io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor.KEY);
    }
}
