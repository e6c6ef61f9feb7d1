package dev.ibex.bench.reactive;

import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Sides;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * {@link PingPong} written the way a cm-reactive user would: the server is {@code RdmaServer.handle(c ->
 * c.send(c.receive()))} (each message copied into a pool buffer, released, sent back — what the callback echo does
 * by hand), the client's handler sends what a sink emits and, for each echo received, records the round trip and
 * emits the next message. Same connection options, same provider settings, one message in flight; everything after
 * the start runs on the two loop threads.
 */
public final class ReactivePingPong implements AutoCloseable {
    private final Sides.Loops loops;
    private final DisposableServer server;
    private final RdmaConnection connection;
    private final Client client;

    private ReactivePingPong(Sides.Loops loops, DisposableServer server, RdmaConnection connection, Client client) {
        this.loops = loops;
        this.server = server;
        this.connection = connection;
        this.client = client;
    }

    /** Connects the two sides of {@code sides} (their own groups) for messages of {@code size} bytes. */
    public static ReactivePingPong open(Sides sides, int size, Duration timeout) {
        ConnectionOptions options = PingPong.options(size);
        Sides.Loops loops = sides.open(Math.max(4096, size));
        DisposableServer server = null;
        try {
            server = RdmaServer.create().runOn(loops.serverGroup()).bindAddress(sides.serverAddress())
                    .connectionOptions(options).handle(c -> c.send(c.receive())).bindNow(timeout);
            Client client = new Client(size);
            RdmaConnection connection = RdmaClient.create().runOn(loops.clientGroup())
                    .remoteAddress(sides.serverAddress()).options(options.withConnectTimeout(timeout))
                    .handle(client::attach).connectNow(timeout);
            return new ReactivePingPong(loops, server, connection, client);
        } catch (RuntimeException e) {
            if (server != null) {
                server.dispose();
            }
            loops.close();
            throw e;
        }
    }

    /**
     * Runs {@code roundTrips} round trips one after the other and returns their times (ns).
     *
     * @throws IllegalStateException when the connection fails or the run exceeds {@code timeout}
     */
    public Histogram run(int roundTrips, Duration timeout) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        CompletableFuture<Histogram> done = new CompletableFuture<>();
        connection.loop().execute(() -> client.start(roundTrips, h, done));
        try {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("reactive ping-pong of " + roundTrips + " round trips: no outcome after "
                    + timeout.toSeconds() + " s (" + client.left + " left)", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("reactive ping-pong failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("reactive ping-pong interrupted", e);
        }
    }

    @Override
    public void close() {
        try {
            connection.dispose();
            server.dispose();
        } finally {
            loops.close();
        }
    }

    /** The client's handler: one message in flight, timed from emission to echo (loop-confined). */
    static final class Client {
        /** One slot: a ping-pong never has a second message waiting, so the sink's queue never allocates. */
        private final Sinks.Many<MemorySegment> outgoing = Sinks.many().unicast()
                .onBackpressureBuffer(Queues.<MemorySegment>one().get());
        private final MemorySegment payload;
        private Histogram histogram;
        private CompletableFuture<Histogram> done;
        private volatile Throwable failure;
        volatile int left;
        private long sentAt;

        Client(int size) {
            payload = Arena.ofAuto().allocate(size);
        }

        Publisher<Void> attach(RdmaConnection c) {
            Mono<Void> sending = c.send(outgoing.asFlux());
            Mono<Void> receiving = c.receive().doOnNext(this::onEcho).then();
            return Mono.when(sending, receiving).doOnError(this::fail);
        }

        void start(int roundTrips, Histogram h, CompletableFuture<Histogram> d) {
            histogram = h;
            done = d;
            left = roundTrips;
            Throwable f = failure;
            if (f != null) {
                d.completeExceptionally(f);
                return;
            }
            sentAt = System.nanoTime();
            emit();
        }

        private void onEcho(Message m) {
            long now = System.nanoTime();
            if (done == null) {
                return;
            }
            histogram.recordValue(Math.min(now - sentAt, histogram.getHighestTrackableValue()));
            if (--left > 0) {
                sentAt = now;
                emit();
            } else {
                CompletableFuture<Histogram> d = done;
                done = null;
                d.complete(histogram);
            }
        }

        private void emit() {
            Sinks.EmitResult r = outgoing.tryEmitNext(payload);
            if (r.isFailure()) {
                fail(new IllegalStateException("the send sink refused a message: " + r));
            }
        }

        private void fail(Throwable t) {
            failure = t;
            CompletableFuture<Histogram> d = done;
            if (d != null) {
                d.completeExceptionally(t);
            }
        }
    }
}
