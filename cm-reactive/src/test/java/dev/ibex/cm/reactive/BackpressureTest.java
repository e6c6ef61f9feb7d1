package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * Demand is the credit: a slow subscriber stops an RC sender without loss and without memory growing on either
 * side; the sender's publisher is asked only for what the send queue takes.
 */
class BackpressureTest {
    static final Duration WAIT = Duration.ofSeconds(30);
    static final int WINDOW = 8;
    static final int DEPTH = 16;
    static final int TOTAL = 400;

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    /** A subscriber that retains every message and requests only when told. */
    static final class Holder extends BaseSubscriber<Message> {
        final List<Message> held = new CopyOnWriteArrayList<>();
        final List<Integer> seen = new CopyOnWriteArrayList<>();
        final AtomicLong requested = new AtomicLong();
        volatile boolean retain = true;

        @Override
        protected void hookOnSubscribe(Subscription s) {
            // no demand yet
        }

        void ask(long n) {
            requested.addAndGet(n);
            request(n);
        }

        @Override
        protected void hookOnNext(Message m) {
            seen.add(Integer.parseInt(m.asString()));
            if (retain) {
                held.add(m.retain());
            }
        }

        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        protected void hookOnError(Throwable t) {
            errors.add(t);
        }

        void releaseAll() {
            List<Message> copy = new ArrayList<>(held);
            held.clear();
            copy.forEach(Message::release);
        }
    }

    static <T> T on(RdmaConnection c, java.util.concurrent.Callable<T> task) {
        try {
            return c.loop().submit(task).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aSlowSubscriberStallsTheSenderWithoutLossAndWithBoundedMemory() {
        // a window of its own (posted receives, RNR); SharedReceivesTest covers the credit-bound default
        ConnectionOptions opts = ConnectionOptions.DEFAULT.withReceiveWindow(WINDOW).withSendQueueDepth(DEPTH)
                .withReceiveMode(dev.ibex.cm.endpoint.ReceiveMode.WINDOW);
        AtomicLong upstreamRequested = new AtomicLong();
        AtomicLong upstreamEmitted = new AtomicLong();
        AtomicLong maxAhead = new AtomicLong();
        AtomicBoolean sendDone = new AtomicBoolean();
        AtomicReference<RdmaConnection> serverSide = new AtomicReference<>();
        List<Throwable> serverErrors = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer().connectionOptions(opts)
                .handle(c -> {
                    serverSide.set(c);
                    return c.send(Flux.range(0, TOTAL).map(String::valueOf)
                                    .doOnRequest(upstreamRequested::addAndGet)
                                    .doOnNext(x -> {
                                        long ahead = upstreamRequested.get() - upstreamEmitted.incrementAndGet();
                                        maxAhead.accumulateAndGet(ahead, Math::max);
                                    }))
                            .doOnSuccess(v -> sendDone.set(true))
                            .doOnError(serverErrors::add)
                            .then(c.onDispose());
                })
                .bindNow();
        RdmaConnection client = hosts.rdmaClient(server).options(opts).connectNow();
        Connection core = client.connection();
        ReactiveConnection rc = (ReactiveConnection) client;
        Holder holder = new Holder();
        client.receive().subscribe(holder);

        // no demand: the receive window fills, then nothing more is posted and the sender stalls
        await().atMost(WAIT).until(() -> on(client, rc::queuedMessages) == WINDOW);
        assertThat(on(client, core::postedReceives)).isZero();
        long emittedWhenStalled = upstreamEmitted.get();
        assertThat(emittedWhenStalled).as("the sender stalls: window + send queue + its prefetch at most")
                .isLessThanOrEqualTo(WINDOW + DEPTH + SendOperation.PREFETCH);
        assertThat(sendDone).isFalse();

        // demand 5 and hold all: at most the window is in use, held messages never exceed demand
        holder.ask(5);
        await().atMost(WAIT).until(() -> holder.seen.size() == 5);
        assertThat(on(client, () -> core.postedReceives() + rc.queuedMessages() + holder.held.size()))
                .isLessThanOrEqualTo(WINDOW);
        assertThat(holder.held).hasSizeLessThanOrEqualTo((int) holder.requested.get());
        assertThat(on(client, core::heldMessages)).isEqualTo(WINDOW);

        // holding messages holds credits: more demand brings nothing while the window is held
        holder.ask(10);
        await().atMost(WAIT).until(() -> holder.seen.size() == WINDOW);
        assertThat(on(client, core::postedReceives)).isZero();

        // release, stop retaining and ask in steps: the sender resumes; every message arrives once, in order
        holder.retain = false;
        holder.releaseAll();
        while (holder.seen.size() < TOTAL) {
            int before = holder.seen.size();
            holder.ask(50);
            try {
                await().atMost(WAIT).until(() -> holder.seen.size() >= Math.min(TOTAL, before + 50));
            } catch (RuntimeException e) {
                RdmaConnection sc = serverSide.get();
                throw new AssertionError("stalled: server errors " + serverErrors + " receive errors " + holder.errors + " seen " + holder.seen.size() + ", requested " + holder.requested
                        + ", client " + on(client, () -> "demand " + ((ReactiveConnection) client).inboundDemand()
                        + " queued " + rc.queuedMessages() + " posted " + core.postedReceives() + " held "
                        + core.heldMessages() + " state " + core.state()) + "; server emitted " + upstreamEmitted
                        + " requested " + upstreamRequested + ", " + on(sc, () -> "writable " + sc.connection()
                        .writableSlots() + " reserved " + ((ReactiveConnection) sc).outbound().reserved() + " ops "
                        + ((ReactiveConnection) sc).registeredOperations() + " state " + sc.connection().state()
                        + " qp " + sc.connection().qp()), e);
            }
            assertThat(on(client, rc::queuedMessages)).isLessThanOrEqualTo(WINDOW);
            assertThat(on(client, core::postedReceives)).isLessThanOrEqualTo(WINDOW);
            assertThat(holder.held.size()).isLessThanOrEqualTo(WINDOW);
        }
        holder.releaseAll();
        await().atMost(WAIT).untilTrue(sendDone);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < TOTAL; i++) {
            expected.add(i);
        }
        assertThat(holder.seen).isEqualTo(expected);
        assertThat(maxAhead.get()).as("requested but not yet emitted").isLessThanOrEqualTo(SendOperation.PREFETCH);
        RdmaConnection s = serverSide.get();
        assertThat(on(s, () -> ((ReactiveConnection) s).outbound().reserved())).isZero();

        holder.dispose();
        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }

    @Test
    void theSendQueueIsNeverOverrunByManySenders() {
        ConnectionOptions opts = ConnectionOptions.DEFAULT.withReceiveWindow(WINDOW).withSendQueueDepth(4);
        DisposableServer server = hosts.rdmaServer().connectionOptions(opts)
                .handle(c -> c.receive().then()).bindNow();
        RdmaConnection client = hosts.rdmaClient(server).options(opts).connectNow();
        List<reactor.core.publisher.Mono<Void>> sends = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            sends.add(client.send(Flux.range(0, 60).map(i -> "s" + i)));
        }
        reactor.core.publisher.Mono.when(sends).block(WAIT);
        assertThat(on(client, () -> ((ReactiveConnection) client).outbound().reserved())).isZero();
        client.disconnect().block(WAIT);
        server.disposeNow(WAIT);
        hosts.awaitQuiet();
    }
}
