package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ReceiveMode;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@code send()} asks its publisher only for what the send queue and the peer's credits take; a source that ignores
 * demand ({@code Flux.interval}) therefore fails with Reactor's {@code OverflowException} once the peer stops
 * reading, unless the application picks an {@code onBackpressure…} operator (cm-reactive/README.md "Sources that
 * ignore back-pressure").
 */
class IgnoredBackpressureTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    /** A window of its own (posted receives), so a peer that reads nothing stops the sender after 8 messages. */
    static final ConnectionOptions OPTS = ConnectionOptions.DEFAULT.withReceiveWindow(8).withSendQueueDepth(8)
            .withReceiveMode(ReceiveMode.WINDOW);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void anIntervalFailsWithOverflowWhenThePeerStopsReading() {
        DisposableServer server = hosts.rdmaServer().connectionOptions(OPTS).handle(c -> c.onDispose()).bindNow();
        RdmaConnection client = hosts.rdmaClient(server).options(OPTS).connectNow();

        StepVerifier.create(client.send(Flux.interval(Duration.ofMillis(1)).map(String::valueOf)))
                .expectErrorMatches(Exceptions::isOverflow)
                .verify(WAIT);

        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void anIntervalWithOnBackpressureDropDropsTicksInsteadAndCompletesOnceThePeerReads() {
        AtomicReference<RdmaConnection> serverSide = new AtomicReference<>();
        DisposableServer server = hosts.rdmaServer().connectionOptions(OPTS).handle(c -> {
            serverSide.set(c);
            return c.onDispose();
        }).bindNow();
        RdmaConnection client = hosts.rdmaClient(server).options(OPTS).connectNow();
        AtomicLong dropped = new AtomicLong();
        AtomicLong emitted = new AtomicLong();
        Mono<Void> send = client.send(Flux.interval(Duration.ofMillis(1))
                .onBackpressureDrop(tick -> dropped.incrementAndGet())
                .take(Duration.ofMillis(400))
                .doOnNext(tick -> emitted.incrementAndGet())
                .map(String::valueOf));
        var done = send.toFuture();

        // the peer reads nothing: ticks are dropped, the send neither fails nor completes
        await().atMost(WAIT).until(() -> dropped.get() > 0);
        assertThat(done).isNotDone();

        // the peer starts reading: what was emitted arrives, then the send completes
        AtomicLong received = new AtomicLong();
        await().atMost(WAIT).until(() -> serverSide.get() != null);
        serverSide.get().receive().subscribe(m -> received.incrementAndGet());
        StepVerifier.create(Mono.fromFuture(done)).expectComplete().verify(WAIT);
        await().atMost(WAIT).until(() -> received.get() == emitted.get());
        assertThat(emitted.get()).isPositive();

        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }
}
