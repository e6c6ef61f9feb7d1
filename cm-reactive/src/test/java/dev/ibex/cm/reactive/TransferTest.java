package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Messages over {@link RdmaConnection#send} and {@link RdmaConnection#receive()}: content, order, ownership. */
class TransferTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();
    DisposableServer server;
    RdmaConnection client;

    @AfterEach
    void close() {
        try {
            if (client != null) {
                client.disconnect().block(WAIT);
            }
            if (server != null) {
                server.disposeNow(WAIT);
            }
            hosts.awaitQuiet();
        } finally {
            hosts.close();
        }
    }

    void echoServer() {
        server = hosts.rdmaServer().handle(c -> c.send(c.receive())).bindNow();
        client = hosts.rdmaClient(server).connectNow();
    }

    static byte[] payload(int i) {
        byte[] b = new byte[1 + (i * 37) % 3000];
        for (int k = 0; k < b.length; k++) {
            b[k] = (byte) (i + k);
        }
        return b;
    }

    @Test
    void everyPayloadKindArrivesIntactAndInOrder() {
        echoServer();
        int n = 300;
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] p = payload(i);
            items.add(switch (i % 4) {
                case 0 -> p;
                case 1 -> ByteBuffer.wrap(p);
                case 2 -> MemorySegment.ofArray(p);
                default -> ByteBuffer.allocateDirect(p.length).put(p).flip();
            });
        }
        List<byte[]> got = new CopyOnWriteArrayList<>();
        // receive while sending: both directions are credit-bound, an echo that nobody reads stalls the sender
        StepVerifier.create(client.receive().take(n).map(Message::toByteArray)
                        .mergeWith(client.send(Flux.fromIterable(items)).then(Mono.empty())))
                .recordWith(() -> got)
                .expectNextCount(n)
                .expectComplete()
                .verify(WAIT);
        for (int i = 0; i < n; i++) {
            assertThat(got.get(i)).as("message %d", i).isEqualTo(payload(i));
        }
    }

    @Test
    void stringsAndImmediateDataTravel() {
        echoServer();
        List<String> seen = new CopyOnWriteArrayList<>();
        client.receive().take(2).subscribe(m -> seen.add(m.asString() + (m.hasImmData() ? "/" + m.immData() : "")));
        StepVerifier.create(client.send(Flux.just("plain", new WithImmediate("tagged", 0x2A)))).verifyComplete();
        await().until(() -> seen.size() == 2);
        assertThat(seen).containsExactly("plain", "tagged/42");
    }

    @Test
    void aPublisherOnAnotherThreadAndConcurrentSendsAllArriveInPerSenderOrder() {
        echoServer();
        int perSender = 150;
        List<String> got = new CopyOnWriteArrayList<>();
        client.receive().map(Message::asString).subscribe(got::add);
        Mono<Void> all = Mono.when(
                client.send(Flux.range(0, perSender).map(i -> "a" + i).publishOn(Schedulers.parallel())),
                client.send(Flux.range(0, perSender).map(i -> "b" + i).subscribeOn(Schedulers.boundedElastic())),
                client.send(Flux.range(0, perSender).map(i -> "c" + i)));
        StepVerifier.create(all).expectComplete().verify(WAIT);
        await().atMost(WAIT).until(() -> got.size() == 3 * perSender);
        for (String prefix : List.of("a", "b", "c")) {
            List<String> mine = got.stream().filter(s -> s.startsWith(prefix)).toList();
            assertThat(mine).hasSize(perSender);
            for (int i = 0; i < perSender; i++) {
                assertThat(mine.get(i)).isEqualTo(prefix + i);
            }
        }
    }

    @Test
    void unsendableItemsFailTheSendAndTheConnectionCarriesOn() {
        echoServer();
        StepVerifier.create(client.send(Flux.just("ok", new Object())))
                .expectErrorMatches(e -> e instanceof IllegalArgumentException && e.getMessage().contains("Object"))
                .verify(WAIT);
        // past the connection's maximum message size (a longer one than a buffer is sent in several: LargeMessageTest)
        StepVerifier.create(client.send(Mono.just(new byte[(1 << 20) + 1])))
                .expectErrorMatches(e -> e instanceof IllegalArgumentException && e.getMessage().contains("1048577"))
                .verify(WAIT);
        StepVerifier.create(client.send(Flux.error(new IllegalStateException("upstream"))))
                .expectErrorMessage("upstream")
                .verify(WAIT);
        StepVerifier.create(client.send(Mono.just("after")).thenMany(client.receive().map(Message::asString)
                        .filter("after"::equals).take(1)))
                .expectNext("after").expectComplete().verify(WAIT);
    }

    /** A payload owned elsewhere: records its copies and releases. */
    static final class Owned implements ReleasablePayload {
        final byte[] bytes;
        final AtomicInteger copies = new AtomicInteger();
        final AtomicInteger releases = new AtomicInteger();

        Owned(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int length() {
            return bytes.length;
        }

        @Override
        public void copyTo(MemorySegment target) {
            assertThat(releases.get()).as("copied after release").isZero();
            copies.incrementAndGet();
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, target, 0, bytes.length);
        }

        @Override
        public void release() {
            releases.incrementAndGet();
        }
    }

    @Test
    void aReleasablePayloadCopiesItselfAndIsReleasedExactlyOnceWhetherSentOrNot() {
        echoServer();
        List<Owned> sent = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            sent.add(new Owned(payload(i)));
        }
        List<byte[]> got = new CopyOnWriteArrayList<>();
        StepVerifier.create(client.receive().take(sent.size()).map(Message::toByteArray)
                        .mergeWith(client.send(Flux.fromIterable(sent)
                                .map(o -> o.bytes.length % 2 == 0 ? o : new WithImmediate(o, 7))).then(Mono.empty())))
                .recordWith(() -> got).expectNextCount(sent.size()).expectComplete().verify(WAIT);
        for (int i = 0; i < sent.size(); i++) {
            assertThat(got.get(i)).as("message %d", i).isEqualTo(payload(i));
            assertThat(sent.get(i).copies).as("copies of %d", i).hasValue(1);
            assertThat(sent.get(i).releases).as("releases of %d", i).hasValue(1);
        }
        // past the maximum message size: released without a copy, the send fails, the connection carries on
        Owned tooLarge = new Owned(new byte[(1 << 20) + 1]);
        StepVerifier.create(client.send(Mono.just(tooLarge)))
                .expectErrorMatches(e -> e instanceof IllegalArgumentException && e.getMessage().contains("1048577"))
                .verify(WAIT);
        assertThat(tooLarge.releases).hasValue(1);
        // after the connection is gone: released, never copied
        client.disconnect().block(WAIT);
        Owned late = new Owned(payload(1));
        StepVerifier.create(client.send(Mono.just(late))).expectError(IllegalStateException.class).verify(WAIT);
        await().atMost(WAIT).untilAsserted(() -> assertThat(late.releases).hasValue(1));
        assertThat(late.copies).hasValue(0);
    }

    @Test
    void receiveHasOneSubscriberAndSendAfterDisposeFails() {
        echoServer();
        client.receive().subscribe();
        StepVerifier.create(client.receive()).expectError(IllegalStateException.class).verify(WAIT);
        client.disconnect().block(WAIT);
        StepVerifier.create(client.send(Mono.just("late"))).expectError(IllegalStateException.class).verify(WAIT);
        StepVerifier.create(client.write(new dev.ibex.cm.buffer.RemoteBuffer(0, 0, 8), 0, new byte[1]))
                .expectError(IllegalStateException.class).verify(WAIT);
        client = null;
    }

    @Test
    void aMessageIsReleasedAfterOnNextUnlessRetained() {
        echoServer();
        List<Message> kept = new CopyOnWriteArrayList<>();
        List<Message> passed = new CopyOnWriteArrayList<>();
        AtomicInteger n = new AtomicInteger();
        client.receive().subscribe(m -> {
            if (n.getAndIncrement() % 2 == 0) {
                kept.add(m.retain());
            } else {
                passed.add(m);
            }
        });
        StepVerifier.create(client.send(Flux.range(0, 6).map(i -> "m" + i))).verifyComplete();
        await().until(() -> n.get() == 6);
        assertThat(passed).allMatch(Message::isReleased);
        assertThatThrownBy(() -> passed.get(0).payload()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> passed.get(0).retain()).isInstanceOf(IllegalStateException.class);
        assertThat(kept).noneMatch(Message::isReleased);
        assertThat(kept).extracting(Message::asString).containsExactly("m0", "m2", "m4");
        await().until(() -> hosts.client.bufferLeaks().size() == 3); // the leak detector sees what we hold
        assertThat(kept.get(0).release()).isTrue();
        assertThat(kept.get(0).release()).as("idempotent").isFalse();
        kept.forEach(Message::release);
        hosts.assertNoLeaks();
    }

    @Test
    void retainedMessagesThatOperatorsDropAreReleasedByTheDiscardHook() {
        echoServer();
        StepVerifier.create(client.send(Flux.range(0, 20).map(i -> "x" + i))).verifyComplete();
        // publishOn queues retained messages; take(1) cancels it, which discards the queued ones
        StepVerifier.create(client.receive()
                        .map(Message::retain)
                        .publishOn(Schedulers.single(), 64)
                        .take(1)
                        .map(m -> {
                            try {
                                return m.asString();
                            } finally {
                                m.release();
                            }
                        })
                        .doOnDiscard(Message.class, Message::release))
                .expectNext("x0")
                .expectComplete()
                .verify(WAIT);
        hosts.assertNoLeaks();
    }

    @Test
    void sendingReceivedMessagesConsumesThem() {
        // the server forwards each received Message itself: send() copies and releases it
        server = hosts.rdmaServer().handle(c -> c.send(c.receive().map(Message::retain))).bindNow();
        client = hosts.rdmaClient(server).connectNow();
        StepVerifier.create(client.receive().take(50).map(Message::asString)
                        .mergeWith(client.send(Flux.range(0, 50).map(i -> "f" + i)).then(Mono.empty())).collectList())
                .assertNext(l -> assertThat(l).hasSize(50).first().isEqualTo("f0"))
                .expectComplete()
                .verify(WAIT);
        hosts.assertNoLeaks();
    }

    @Test
    void receiveCompletesAfterWhatArrivedWhenThePeerDisconnects() {
        server = hosts.rdmaServer()
                .handle(c -> c.send(Flux.just("last", "words")).then(Mono.fromRunnable(c::dispose)))
                .bindNow();
        // subscribed in the connect Mono's onNext, on the loop: nothing can arrive before (a connection that closes
        // before anyone subscribed releases what it received, so connections nobody reads cannot hold buffers)
        StepVerifier.create(hosts.rdmaClient(server).connect().flatMapMany(RdmaConnection::receive)
                        .map(m -> m.asString(StandardCharsets.UTF_8)))
                .expectNext("last", "words")
                .expectComplete()
                .verify(WAIT);
    }
}
