package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.SoftRoceProvider;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

/** {@link RdmaServer}: binding, the connections it hands out, handlers, disposal, owned loops. */
class ServerTest {
    static final Duration WAIT = Duration.ofSeconds(15);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void bindsAnEphemeralPortAndHandsOutAcceptedConnectionsUntilDisposed() {
        List<DisposableServer> bound = new CopyOnWriteArrayList<>();
        List<DisposableServer> unbound = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer().doOnBound(bound::add).doOnUnbound(unbound::add).bindNow();
        assertThat(server.port()).isPositive();
        assertThat(server.host()).isEqualTo(SERVER_IP);
        assertThat(server.address()).isEqualTo(new InetSocketAddress(SERVER_IP, server.port()));
        assertThat(bound).containsExactly(server);

        List<RdmaConnection> accepted = new CopyOnWriteArrayList<>();
        AtomicInteger completed = new AtomicInteger();
        server.connections().subscribe(accepted::add, null, completed::incrementAndGet);
        RdmaConnection a = hosts.rdmaClient(server).connectNow();
        RdmaConnection b = hosts.rdmaClient(server).connectNow();
        await().until(() -> accepted.size() == 2);
        assertThat(accepted).allMatch(RdmaConnection::isPassive);
        assertThat(server.activeConnections()).isEqualTo(2);

        server.disposeNow(WAIT);
        assertThat(server.isDisposed()).isTrue();
        assertThat(completed).hasValue(1);
        assertThat(unbound).containsExactly(server);
        // the clients see the server's disconnect
        StepVerifier.create(a.onDispose()).expectComplete().verify(WAIT);
        StepVerifier.create(b.receive()).expectComplete().verify(WAIT);
        assertThat(server.activeConnections()).isZero();
        hosts.awaitQuiet();
    }

    @Test
    void theConnectionIsDisposedWhenTheHandlerTerminates() {
        DisposableServer completes = hosts.rdmaServer().handle(c -> Mono.empty()).bindNow();
        DisposableServer fails = hosts.rdmaServer().handle(c -> Mono.error(new IllegalStateException("x")))
                .bindNow();
        DisposableServer throwing = hosts.rdmaServer().handle(c -> {
            throw new IllegalStateException("boom");
        }).bindNow();
        for (DisposableServer s : List.of(completes, fails, throwing)) {
            RdmaConnection c = hosts.rdmaClient(s).connectNow();
            StepVerifier.create(c.events().map(ConnectionEvent::type))
                    .expectNext(ConnectionEvent.Type.ESTABLISHED, ConnectionEvent.Type.DISCONNECTED,
                            ConnectionEvent.Type.CLOSED)
                    .expectComplete()
                    .verify(WAIT);
            s.disposeNow(WAIT);
        }
        hosts.awaitQuiet();
    }

    @Test
    void theHandlerIsCancelledWhenTheConnectionClosesAndSeesTheBindersContext() {
        List<String> seen = new CopyOnWriteArrayList<>();
        AtomicInteger cancelled = new AtomicInteger();
        DisposableServer server = hosts.rdmaServer()
                .handle(c -> Mono.deferContextual(ctx -> {
                    seen.add(ctx.get("tenant"));
                    return Mono.<Void>never();
                }).doOnCancel(cancelled::incrementAndGet))
                .bind().contextWrite(Context.of("tenant", "blue")).block(WAIT);
        RdmaConnection c = hosts.rdmaClient(server).connectNow();
        await().until(() -> seen.size() == 1);
        assertThat(seen).containsExactly("blue");
        c.disconnect().block(WAIT);
        await().until(() -> cancelled.get() == 1);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void theClientHandlerSeesTheConnectSubscribersContextAndDisposesOnCompletion() {
        DisposableServer server = hosts.rdmaServer().bindNow();
        List<String> seen = new CopyOnWriteArrayList<>();
        RdmaConnection c = hosts.rdmaClient(server)
                .handle(conn -> Mono.deferContextual(ctx -> {
                    seen.add(ctx.get("who"));
                    return Mono.empty();
                }))
                .connect().contextWrite(Context.of("who", "client")).block(WAIT);
        assertThat(seen).containsExactly("client");
        StepVerifier.create(c.onDispose()).expectComplete().verify(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void bindingFailsForAnAddressWithoutDeviceAndForAPortInUse() {
        StepVerifier.create(RdmaServer.create().runOn(hosts.server).host("127.0.0.5").port(0).bind())
                .expectError()
                .verify(WAIT);
        DisposableServer first = hosts.rdmaServer().bindNow();
        StepVerifier.create(hosts.rdmaServer().port(first.port()).bind())
                .expectError()
                .verify(WAIT);
        first.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void cancellingTheBindClosesTheListener() {
        List<DisposableServer> delivered = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            // races with the listen: either it is cancelled before listening (closed) or delivered first
            hosts.rdmaServer().bind().subscribe(delivered::add).dispose();
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(hosts.ids()).isEqualTo(delivered.size()));
        delivered.forEach(DisposableServer::dispose);
        hosts.awaitQuiet();
    }

    @Test
    void aServerOnLoopsOfItsOwnClosesThemWhenDisposed() {
        ProviderConfig own = ProviderConfig.of(Map.of("ibex.softroce.port", Integer.toString(hosts.udpPort),
                "ibex.softroce.devices", "own=127.0.0.4", "ibex.softroce.timerScale", "0.1"));
        DisposableServer server = RdmaServer.create()
                // by instance, not by name: the server owns loops of this provider
                .runOn(new SoftRoceProvider(), own, LoopOptions.DEFAULT.withLoops(1).withThreadName("own-loop"))
                .host("127.0.0.4")
                .handle(c -> c.send(c.receive()))
                .bindNow();
        RdmaConnection c = RdmaClient.create().runOn(hosts.client).remoteAddress(server.address()).connectNow();
        StepVerifier.create(c.send(Mono.just("ping")).thenMany(c.receive().take(1).map(Message::asString)))
                .expectNext("ping").expectComplete().verify(WAIT);
        assertThat(loopThreads("own-loop")).isPositive();
        server.disposeNow(WAIT);
        StepVerifier.create(c.onDispose()).expectComplete().verify(WAIT);
        await().until(() -> loopThreads("own-loop") == 0);
        hosts.awaitQuiet();
    }

    private static long loopThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
    }
}
