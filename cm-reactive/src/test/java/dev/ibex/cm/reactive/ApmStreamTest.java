package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.Errno;
import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.endpoint.RdmaPath;
import dev.ibex.cm.spi.MigState;
import dev.ibex.softroce.SoftFabric;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * APM through the reactive API on soft-roce: two hosts with two ports each (127.0.0.2/127.0.0.12 and
 * 127.0.0.3/127.0.0.13). Both ends load the mirrored alternate, a sequenced stream runs, the primary path is cut in
 * the middle: the stream completes normally, every message arrives once and in order, both connections report
 * PATH_MIGRATED naming the path now primary.
 */
class ApmStreamTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final String SERVER_ALT = "127.0.0.12";
    static final String CLIENT_ALT = "127.0.0.13";
    static final int MESSAGES = 5_000;

    SoftHosts hosts;

    @AfterEach
    void close() {
        if (hosts != null) {
            hosts.close();
        }
    }

    @Test
    void aStreamRunsAcrossAMigrationWithNothingLostAndCompletesNormally() {
        hosts = new SoftHosts("srv=" + SoftHosts.SERVER_IP + "/" + SERVER_ALT,
                "cli=" + SoftHosts.CLIENT_IP + "/" + CLIENT_ALT, Map.of());
        AtomicLong received = new AtomicLong();
        AtomicReference<String> outOfOrder = new AtomicReference<>();
        List<ConnectionEvent> serverEvents = new CopyOnWriteArrayList<>();
        AtomicReference<RdmaConnection> serverSide = new AtomicReference<>();
        DisposableServer server = hosts.rdmaServer()
                .handle(c -> {
                    serverSide.set(c);
                    c.events().subscribe(serverEvents::add);
                    Mono<Void> load = c.alternatePath(new InetSocketAddress(SERVER_ALT, 0),
                            new InetSocketAddress(CLIENT_ALT, 0));
                    Mono<Void> consume = c.receive().doOnNext(m -> {
                        long seq = m.payload().get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
                        if (seq != received.get() && outOfOrder.get() == null) {
                            outOfOrder.set("expected " + received.get() + ", got " + seq);
                        }
                        received.incrementAndGet();
                    }).then();
                    return load.then(consume);
                })
                .bindNow();
        RdmaConnection client = hosts.rdmaClient(server).connectNow(WAIT);
        List<ConnectionEvent> clientEvents = new CopyOnWriteArrayList<>();
        client.events().subscribe(clientEvents::add);
        StepVerifier.create(client.alternatePath(new InetSocketAddress(CLIENT_ALT, 0),
                new InetSocketAddress(SERVER_ALT, 0))).verifyComplete();
        assertThat(client.pathMigrationState()).isIn(MigState.REARM, MigState.ARMED);

        SoftFabric clientFabric = (SoftFabric) hosts.clientFabric;
        // two gates keep the stream running around the cut without blocking the loop: it pauses at a quarter until
        // both ends are seen ARMED, and at three quarters until the test thread has cut the primary (which it does
        // once half the messages arrived, so packets are in flight when the path dies)
        Sinks.One<Boolean> armed = Sinks.one();
        Sinks.One<Boolean> cut = Sinks.one();
        Flux<byte[]> stream = Flux.range(0, MESSAGES)
                .delayUntil(i -> i == MESSAGES / 4 ? armed.asMono() : i == 3 * MESSAGES / 4 ? cut.asMono()
                        : Mono.empty())
                .map(i -> {
                    byte[] b = new byte[16];
                    java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.nativeOrder()).putLong(i);
                    return b;
                });
        Mono<Void> sending = client.send(stream).cache();
        sending.subscribe(v -> { }, e -> { });
        await().atMost(WAIT).until(() -> client.pathMigrationState() == MigState.ARMED
                && serverSide.get() != null && serverSide.get().pathMigrationState() == MigState.ARMED);
        armed.tryEmitValue(true);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (received.get() < MESSAGES / 2 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(100_000);
        }
        clientFabric.faultCommands().apply("cut " + SoftHosts.CLIENT_IP + " " + SoftHosts.SERVER_IP);
        cut.tryEmitValue(true);
        StepVerifier.create(sending).expectComplete().verify(WAIT);
        await().atMost(WAIT).until(() -> received.get() == MESSAGES);

        assertThat(outOfOrder.get()).isNull();
        await().atMost(WAIT).until(() -> serverEvents.stream().anyMatch(
                e -> e.type() == ConnectionEvent.Type.PATH_MIGRATED));
        ConnectionEvent migrated = clientEvents.stream()
                .filter(e -> e.type() == ConnectionEvent.Type.PATH_MIGRATED).findFirst().orElseThrow();
        RdmaPath now = migrated.path();
        assertThat(now.local().getHostAddress()).isEqualTo(CLIENT_ALT);
        assertThat(now.remote().getHostAddress()).isEqualTo(SERVER_ALT);
        assertThat(now.port()).isEqualTo(2);
        assertThat(client.primaryPath()).isEqualTo(now);
        assertThat(client.pathMigrationState()).isEqualTo(MigState.MIGRATED);
        assertThat(clientEvents).extracting(ConnectionEvent::type).containsSubsequence(
                ConnectionEvent.Type.ALTERNATE_PATH_LOADED, ConnectionEvent.Type.PATH_ARMED,
                ConnectionEvent.Type.PATH_MIGRATED);
        assertThat(clientEvents).extracting(ConnectionEvent::type).doesNotContain(ConnectionEvent.Type.ERROR,
                ConnectionEvent.Type.PATH_MIG_ERROR);
        clientFabric.faultCommands().apply("reset");
        client.disconnect().block(WAIT);
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void aSoftDeviceWithOneAddressRefusesAlternatePathsTyped() {
        hosts = new SoftHosts();
        DisposableServer server = hosts.rdmaServer().handle(c -> c.onDispose()).bindNow();
        RdmaConnection client = hosts.rdmaClient(server).connectNow(WAIT);
        StepVerifier.create(client.alternatePath(new InetSocketAddress(SoftHosts.CLIENT_IP, 0),
                        new InetSocketAddress(SoftHosts.SERVER_IP, 0)))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(PathMigrationException.class);
                    assertThat(((PathMigrationException) e).reason())
                            .isEqualTo(PathMigrationException.Reason.NO_AUTO_PATH_MIG);
                    assertThat(((PathMigrationException) e).errno()).isEqualTo(Errno.ENOTSUP);
                    assertThat(e.getMessage()).contains("second address");
                })
                .verify(WAIT);
        client.disconnect().block(WAIT);
        server.disposeNow();
        hosts.awaitQuiet();
    }
}
