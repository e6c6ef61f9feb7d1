package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.MessageTooLargeException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Messages longer than a pool buffer through {@link RdmaConnection#send} and {@link RdmaConnection#receive()} on
 * soft-roce (4 KiB buffers, path MTU 4096 on loopback): an echo server returns each message whole, at every size
 * around the boundaries, and a message past the connection's maximum fails the send with a typed error.
 */
class LargeMessageTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final int BUFFER = 4096;
    static final int MAX = 2 << 20;
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withMaxMessageSize(MAX);
    /**
     * 16 MiB per loop: beside the SRQ's 512 buffers, messages from 1 MiB on go by rendezvous, and a sender holds
     * each until the peer has read it while the echo comes back the same way (two 2 MiB messages each way).
     */
    static final dev.ibex.cm.buffer.BufferPool.Options POOL = dev.ibex.cm.loop.LoopOptions.DEFAULT.buffers()
            .withBufferSize(BUFFER).withSlabs(64, 4096);

    final SoftHosts hosts = new SoftHosts(POOL);

    @AfterEach
    void close() {
        hosts.close();
    }

    static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + seed + (i >>> 12));
        }
        return b;
    }

    /** Sizes around every boundary: the buffer, MTU multiples, 1 MiB, the maximum. */
    static List<Integer> sizes() {
        return List.of(1, BUFFER - 1, BUFFER, BUFFER + 1, 2 * BUFFER - 1, 2 * BUFFER, 2 * BUFFER + 1, 3 * 4096 + 17,
                16 * 4096, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 1 << 20, MAX - 1, MAX);
    }

    @Test
    void anEchoServerReturnsEveryMessageWholeAtEverySizeAroundTheBoundaries() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withConnection(OPTIONS))
                .handle(c -> c.send(c.receive().map(Message::toByteArray)))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).options(OPTIONS).connectNow();
        List<Integer> sizes = sizes();
        List<byte[]> sent = IntStream.range(0, sizes.size()).mapToObj(i -> pattern(sizes.get(i), i)).toList();
        List<byte[]> back = c.send(Flux.fromIterable(sent))
                .thenMany(Flux.<byte[]>empty())
                .mergeWith(c.receive().take(sizes.size()).map(Message::toByteArray))
                .collectList().block(WAIT);
        assertThat(back).hasSize(sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            assertThat(back.get(i).length).as("message %d", i).isEqualTo(sizes.get(i));
            assertThat(Arrays.equals(back.get(i), sent.get(i))).as("contents of message %d (%d B)", i, sizes.get(i))
                    .isTrue();
        }
        c.dispose();
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void aReceivedMessageOfSeveralBuffersIsCompositeAndKeepsItsImmediateData() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withConnection(OPTIONS))
                .handle(c -> c.send(c.receive().map(m -> new WithImmediate(m.toByteArray(),
                        m.isComposite() ? m.buffers().count() : -1))))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).options(OPTIONS).connectNow();
        byte[] payload = pattern(3 * BUFFER + 5, 7);
        Message m = c.send(Mono.just(new WithImmediate(payload, 0x1234)))
                .thenMany(Flux.<Message>empty())
                .mergeWith(c.receive().take(1).map(Message::retain))
                .blockFirst(WAIT);
        try {
            assertThat(m.isComposite()).isTrue();
            assertThat(m.buffers().count()).isEqualTo(4);
            assertThat(m.hasImmData()).isTrue();
            assertThat(m.immData()).as("the server saw 4 buffers").isEqualTo(4);
            byte[] copy = new byte[m.length()];
            m.copyTo(java.lang.foreign.MemorySegment.ofArray(copy));
            assertThat(copy).isEqualTo(payload);
        } finally {
            m.release();
        }
        c.dispose();
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void aMessagePastTheMaximumFailsTheSendWithATypedErrorAndTheConnectionGoesOn() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withConnection(OPTIONS))
                .handle(c -> c.send(c.receive().map(Message::toByteArray)))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).options(OPTIONS).connectNow();
        StepVerifier.create(c.send(Mono.just(new byte[MAX + 1])))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(MessageTooLargeException.class)
                        .hasMessageContaining(Integer.toString(MAX)).hasMessageContaining("withMaxMessageSize"))
                .verify(WAIT);
        StepVerifier.create(c.send(Mono.just("still here")).thenMany(c.receive().take(1).map(Message::asString)))
                .expectNext("still here").verifyComplete();
        c.dispose();
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void thePeersSmallerMaximumIsTheLimit() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withConnection(ConnectionOptions.DEFAULT.withMaxMessageSize(64 * 1024)))
                .handle(c -> c.send(c.receive().map(Message::toByteArray)))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).options(OPTIONS).connectNow();
        StepVerifier.create(c.send(Mono.just(new byte[64 * 1024 + 1])))
                .expectError(MessageTooLargeException.class).verify(WAIT);
        StepVerifier.create(c.send(Mono.just(new byte[64 * 1024])).thenMany(c.receive().take(1).map(Message::length)))
                .expectNext(64 * 1024).verifyComplete();
        c.dispose();
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void aPeerWithAWindowOfItsOwnGetsOneBufferPerMessage() {
        DisposableServer server = hosts.rdmaServer()
                .options(ListenOptions.DEFAULT.withConnection(
                        ConnectionOptions.DEFAULT.withReceiveMode(dev.ibex.cm.endpoint.ReceiveMode.WINDOW)))
                .handle(c -> c.send(c.receive().map(Message::toByteArray)))
                .bindNow();
        RdmaConnection c = hosts.rdmaClient(server).options(OPTIONS).connectNow();
        StepVerifier.create(c.send(Mono.just(new byte[BUFFER + 1])))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(MessageTooLargeException.class)
                        .hasMessageContaining("reassembles no message"))
                .verify(WAIT);
        StepVerifier.create(c.send(Mono.just(new byte[BUFFER])).thenMany(c.receive().take(1).map(Message::length)))
                .expectNext(BUFFER).verifyComplete();
        c.dispose();
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }
}
