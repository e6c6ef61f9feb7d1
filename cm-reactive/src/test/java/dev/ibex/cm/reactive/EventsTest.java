package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.Errno;
import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEventType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link RdmaConnection#events()}, path migration and device events over cm-core's loopback fake, which migrates
 * paths as the IBA specifies (the soft provider does not claim APM).
 */
class EventsTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static final InetSocketAddress ALT = new InetSocketAddress("10.0.0.1", 0);

    FakeHosts hosts = FakeHosts.loopback();
    DisposableServer server;
    RdmaConnection client;
    final List<ConnectionEvent.Type> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        if (client != null) {
            client.disconnect().block(WAIT);
        }
        if (server != null) {
            server.disposeNow(WAIT);
        }
        hosts.awaitNoEndpoints();
        hosts.close();
    }

    void connect(boolean serverLoadsAlternate) {
        server = RdmaServer.create().runOn(hosts.group).host("10.0.0.1").port(7471)
                .handle(c -> (serverLoadsAlternate ? c.alternatePath(ALT, ALT) : Mono.<Void>empty())
                        .then(c.onDispose()))
                .bindNow();
        client = RdmaClient.create().runOn(hosts.group).remoteAddress(server.address()).connectNow();
        client.events().map(ConnectionEvent::type).subscribe(seen::add);
        // events() is hot: the subscription is attached (on the loop) once the lifecycle replay arrived
        await().until(() -> seen.contains(ConnectionEvent.Type.ESTABLISHED));
    }

    @Test
    void pathsLoadMigrateAndFailAsEvents() {
        connect(true);
        StepVerifier.create(client.alternatePath(ALT, ALT)).expectComplete().verify(WAIT);
        await().until(() -> seen.contains(ConnectionEvent.Type.PATH_ARMED)); // the server re-armed too
        assertThat(client.pathMigrationState()).isEqualTo(dev.ibex.cm.spi.MigState.ARMED);
        FakeQp qp = (FakeQp) client.connection().qp();
        qp.failPrimaryPath(); // both ends are armed: they migrate
        await().until(() -> seen.contains(ConnectionEvent.Type.PATH_MIGRATED));
        qp.failPrimaryPath(); // nothing loaded any more
        await().until(() -> seen.contains(ConnectionEvent.Type.PATH_MIG_ERROR));
        assertThat(seen).containsExactly(ConnectionEvent.Type.ESTABLISHED,
                ConnectionEvent.Type.ALTERNATE_PATH_LOADED, ConnectionEvent.Type.PATH_ARMED,
                ConnectionEvent.Type.PATH_MIGRATED, ConnectionEvent.Type.PATH_MIG_ERROR);
        assertThat(client.pathMigrationState()).isEqualTo(dev.ibex.cm.spi.MigState.MIGRATED);
        StepVerifier.create(client.send(Mono.just("still here"))).expectComplete().verify(WAIT);
    }

    @Test
    void aForcedMigrationCompletesOnMigratedAndFailsWithoutAlternate() {
        connect(true);
        StepVerifier.create(client.alternatePath(ALT, ALT)).expectComplete().verify(WAIT);
        await().until(() -> seen.contains(ConnectionEvent.Type.PATH_ARMED));
        StepVerifier.create(client.migrate()).expectComplete().verify(WAIT);
        assertThat(seen).contains(ConnectionEvent.Type.PATH_MIGRATED);
        StepVerifier.create(client.migrate())
                .expectErrorSatisfies(e -> assertThat(((PathMigrationException) e).reason())
                        .isEqualTo(PathMigrationException.Reason.NOT_ARMED))
                .verify(WAIT);
        StepVerifier.create(client.rearm()).expectComplete().verify(WAIT);
    }

    @Test
    void withoutApmTheDeviceSaysSo() {
        hosts.close();
        hosts = FakeHosts.loopbackWithoutApm();
        server = RdmaServer.create().runOn(hosts.group).host("10.0.0.1").port(7471).bindNow();
        client = RdmaClient.create().runOn(hosts.group).remoteAddress(server.address()).connectNow();
        StepVerifier.create(client.alternatePath(ALT, ALT))
                .expectErrorSatisfies(e -> {
                    assertThat(((RdmaException) e).errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(((PathMigrationException) e).reason())
                            .isEqualTo(PathMigrationException.Reason.NO_AUTO_PATH_MIG);
                })
                .verify(WAIT);
        StepVerifier.create(client.migrate()).expectError(PathMigrationException.class).verify(WAIT);
    }

    @Test
    void addressChangeAndPortEventsAreEventsAndTheConnectionStays() {
        connect(false);
        ((FakeCmId) client.connection().cmId()).inject(CmEventType.ADDR_CHANGE, 0, null);
        hosts.fabric.raise(new AsyncEvent(AsyncEventType.PORT_ERR, client.connection().device(), null, null, null,
                1));
        List<ConnectionEvent> full = new CopyOnWriteArrayList<>();
        client.events().subscribe(full::add);
        await().untilAsserted(() -> assertThat(seen).contains(ConnectionEvent.Type.DEVICE_EVENT,
                ConnectionEvent.Type.ADDRESS_CHANGED));
        assertThat(full.get(0).type()).as("late subscribers start with the lifecycle").isEqualTo(
                ConnectionEvent.Type.ESTABLISHED);
        StepVerifier.create(client.send(Mono.just("fine"))).expectComplete().verify(WAIT);
    }

    @Test
    void aFatalQpErrorFailsReceiveAndClosesTheConnection() {
        connect(false);
        List<Throwable> receiveErrors = new CopyOnWriteArrayList<>();
        client.receive().subscribe(null, receiveErrors::add);
        hosts.fabric.raise(new AsyncEvent(AsyncEventType.QP_FATAL, client.connection().device(),
                client.connection().qp(), null, null, 0));
        StepVerifier.create(client.onDispose()).expectComplete().verify(WAIT);
        assertThat(seen).containsExactly(ConnectionEvent.Type.ESTABLISHED, ConnectionEvent.Type.ERROR,
                ConnectionEvent.Type.CLOSED);
        assertThat(receiveErrors).singleElement().isInstanceOf(RdmaException.class);
        StepVerifier.create(client.events().map(ConnectionEvent::type))
                .expectNext(ConnectionEvent.Type.ESTABLISHED, ConnectionEvent.Type.ERROR, ConnectionEvent.Type.CLOSED)
                .expectComplete().verify(WAIT);
    }

    @Test
    void aSubscriberThatNeverRequestsOverflowsAloneAndOthersGetEverything() {
        connect(false);
        List<Throwable> overflow = new CopyOnWriteArrayList<>();
        StepVerifier.create(client.events(), 0).expectSubscription().thenCancel().verify(WAIT);
        client.events().subscribe(new reactor.core.publisher.BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                // never requests
            }

            @Override
            protected void hookOnError(Throwable t) {
                overflow.add(t);
            }
        });
        for (int i = 0; i < EventBroadcast.CAP + 5; i++) {
            hosts.fabric.raise(new AsyncEvent(AsyncEventType.PORT_ACTIVE, client.connection().device(), null, null,
                    null, 1));
        }
        await().until(() -> seen.stream().filter(ConnectionEvent.Type.DEVICE_EVENT::equals).count()
                == EventBroadcast.CAP + 5);
        await().until(() -> overflow.size() == 1);
        assertThat(Exceptions.isOverflow(overflow.get(0))).isTrue();
    }
}
