package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.cm.spi.WcStatus;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * RDMA WRITE, READ and atomics as Monos, against a buffer the server exposes ({@link RdmaConnection#expose}): its
 * descriptor travels in a message ({@link RemoteBuffer#toBytes()}), the server holds the buffer until the connection
 * closes.
 */
class RdmaOpsTest {
    static final Duration WAIT = Duration.ofSeconds(15);

    final SoftHosts hosts = new SoftHosts();
    final List<Buffer> exposed = new CopyOnWriteArrayList<>();
    DisposableServer server;
    RdmaConnection client;
    RemoteBuffer target;

    final List<Throwable> receiveErrors = new CopyOnWriteArrayList<>();

    @BeforeEach
    void connect() throws Exception {
        server = hosts.rdmaServer()
                .handle(c -> c.allocate().flatMap(b -> {
                    exposed.add(b);
                    b.segment().fill((byte) 0);
                    return c.expose(b, RemoteAccess.READ, RemoteAccess.WRITE, RemoteAccess.ATOMIC)
                            .flatMap(x -> c.send(Mono.just(x.remote().toBytes())))
                            .then(c.onDispose())
                            .doFinally(s -> b.release());
                }))
                .bindNow();
        client = hosts.rdmaClient(server).connectNow();
        CompletableFuture<RemoteBuffer> descriptor = new CompletableFuture<>();
        client.receive().subscribe(m -> descriptor.complete(RemoteBuffer.decode(m.payload(), 0)), receiveErrors::add);
        target = descriptor.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @AfterEach
    void close() {
        try {
            client.disconnect().block(WAIT);
            server.disposeNow(WAIT);
            hosts.awaitQuiet();
        } finally {
            hosts.close();
        }
    }

    @Test
    void writeThenReadBackAndTheResultFollowsTheOwnershipRule() {
        assertThat(target.length()).isEqualTo(4096);
        StepVerifier.create(client.write(target, 8, "hello".getBytes())).verifyComplete();
        StepVerifier.create(client.read(target, 8, 5).map(Message::asString)).expectNext("hello").verifyComplete();
        assertThat(exposed.get(0).segment().getString(8)).isEqualTo("hello");

        Message kept = client.read(target, 8, 5).map(Message::retain).block(WAIT);
        Message dropped = client.read(target, 8, 5).block(WAIT);
        await().until(dropped::isReleased); // released on the loop right after onNext (block() returns earlier)
        assertThat(kept.asString()).isEqualTo("hello");
        kept.release();
    }

    @Test
    void atomicsReturnThePreviousValue() {
        StepVerifier.create(client.fetchAdd(target, 64, 5)).expectNext(0L).verifyComplete();
        StepVerifier.create(client.fetchAdd(target, 64, 1)).expectNext(5L).verifyComplete();
        StepVerifier.create(client.compareSwap(target, 64, 6, 100)).expectNext(6L).verifyComplete();
        StepVerifier.create(client.compareSwap(target, 64, 6, 7)).expectNext(100L).verifyComplete();
        assertThat(exposed.get(0).segment().get(ValueLayout.JAVA_LONG, 64)).isEqualTo(100L);
        // many at once: each gets a slot in turn, none is lost
        StepVerifier.create(Flux.range(0, 200).flatMap(i -> client.fetchAdd(target, 64, 1)).collectList())
                .assertNext(prev -> assertThat(prev).doesNotHaveDuplicates().hasSize(200))
                .verifyComplete();
        assertThat(exposed.get(0).segment().get(ValueLayout.JAVA_LONG, 64)).isEqualTo(300L);
    }

    @Test
    void badArgumentsFailTheMonoAndTheConnectionCarriesOn() {
        StepVerifier.create(client.write(target, 4090, new byte[16]))
                .expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(client.read(target, 0, 5000)).expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(client.fetchAdd(target, 3, 1)).expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(client.write(target, 0, new Object())).expectError(IllegalArgumentException.class)
                .verify(WAIT);
        StepVerifier.create(client.write(target, 0, "still fine")).verifyComplete();
    }

    @Test
    void aWrongRemoteKeyFailsTheOperationAndBreaksTheConnection() {
        RemoteBuffer wrong = new RemoteBuffer(target.address(), target.rkey() + 1, target.length());
        List<ConnectionEvent.Type> events = new CopyOnWriteArrayList<>();
        client.events().map(ConnectionEvent::type).subscribe(events::add);
        StepVerifier.create(client.write(wrong, 0, "x"))
                .expectErrorSatisfies(e -> assertThat(((WorkCompletionException) e).status())
                        .isEqualTo(WcStatus.REM_ACCESS_ERR))
                .verify(WAIT);
        await().atMost(WAIT).until(() -> events.contains(ConnectionEvent.Type.CLOSED));
        // the NAK breaks both ends: this side reports the error, unless the peer's disconnect (it broke too) came
        // first, and then the error was only the failed operation's
        if (events.contains(ConnectionEvent.Type.ERROR)) {
            assertThat(events).containsSubsequence(ConnectionEvent.Type.ESTABLISHED, ConnectionEvent.Type.ERROR,
                    ConnectionEvent.Type.CLOSED);
            // receive() fails with the typed failure of the connection, never completes as if the peer closed
            assertThat(receiveErrors).singleElement().isInstanceOfSatisfying(ConnectionFailedException.class,
                    f -> assertThat(f.reason()).isEqualTo(ConnectionFailedException.Reason.REMOTE_ACCESS))
                    .extracting(Throwable::getCause).isInstanceOf(WorkCompletionException.class);
        } else {
            assertThat(events).containsExactly(ConnectionEvent.Type.ESTABLISHED, ConnectionEvent.Type.DISCONNECTED,
                    ConnectionEvent.Type.CLOSED);
        }
    }

    @Test
    void cancelledOperationsLeaveNothingBehind() throws Exception {
        for (int i = 0; i < 50; i++) {
            client.read(target, 0, 64).subscribe().dispose();
            client.write(target, 0, "x").subscribe().dispose();
            client.fetchAdd(target, 64, 1).subscribe().dispose();
        }
        StepVerifier.create(client.read(target, 0, 1)).expectNextCount(1).verifyComplete();
        ReactiveConnection rc = (ReactiveConnection) client;
        await().until(() -> client.loop().submit(rc::registeredOperations).get() == 0);
        assertThat(hosts.client.bufferLeaks()).isEmpty(); // (the server holds its exposed buffer by design)
    }
}
