package dev.ibex.bench.callback;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Ping-pong latency over the callback API: the client SENDs one {@code size}-byte message, the server's
 * {@code onMessage} copies it into a fresh buffer and SENDs it back, the client's {@code onMessage} records the
 * round trip and sends the next. Everything after the start runs on the two loop threads; nothing allocates per
 * message.
 */
public final class PingPong implements AutoCloseable {
    /**
     * The ping-pong's receive window: 16 messages, so each side sends a credit update every fourth message it
     * consumes (a quarter of the window).
     */
    public static final int WINDOW = 16;

    private final ConnectedPair pair;
    private final Client client;
    private final int size;

    private PingPong(ConnectedPair pair, Client client, int size) {
        this.pair = pair;
        this.client = client;
        this.size = size;
    }

    /** Connects the two sides of {@code sides} for messages of {@code size} bytes. */
    public static PingPong open(Sides sides, int size, Duration timeout) {
        return open(sides, size, timeout, options(size));
    }

    /** {@link #open(Sides, int, Duration)} with both ends' connection options {@code options}. */
    public static PingPong open(Sides sides, int size, Duration timeout, ConnectionOptions options) {
        Client client = new Client(size);
        ConnectedPair pair = ConnectedPair.open(sides, Math.max(4096, size), options, new Echo(), client, timeout);
        return new PingPong(pair, client, size);
    }

    /**
     * The client half of a ping-pong whose server runs in another process ({@link #echoUntilDisconnected}); the
     * connect itself may take up to {@code timeout} too (not the options' 10 s: a cold JVM on the other side, C2-only
     * under emulation, answers slowly). It grants the server a receive window of {@code window} messages
     * ({@link #WINDOW} unless a benchmark tries another).
     */
    public static PingPong connect(Sides sides, int size, int window, Duration timeout) {
        return connect(sides, size, options(size, window), timeout);
    }

    /** {@link #connect(Sides, int, int, Duration)} with the connection's {@code options} (its timeout set here). */
    public static PingPong connect(Sides sides, int size, ConnectionOptions options, Duration timeout) {
        Client client = new Client(size);
        ConnectedPair pair = ConnectedPair.connectAlone(sides, Math.max(4096, size),
                options.withConnectTimeout(timeout), client, timeout);
        return new PingPong(pair, client, size);
    }

    /**
     * The server half of a ping-pong whose client ({@link #connect}) runs in another process: listens, runs
     * {@code listening}, echoes every message of the one connection that comes within {@code openLimit}, granting the
     * client a receive window of {@code window} messages, and returns once the client ended it.
     *
     * @throws IllegalStateException when no client connects in time, the connection fails, or it lasts beyond
     *     {@code runLimit}
     */
    public static void echoUntilDisconnected(Sides sides, int size, int window, Duration openLimit,
            Duration runLimit, Runnable listening) {
        echoUntilDisconnected(sides, size, options(size, window), openLimit, runLimit, listening);
    }

    /**
     * {@link #echoUntilDisconnected(Sides, int, int, Duration, Duration, Runnable)} with the accepted connection's
     * {@code options} (its connect timeout set here, as {@link #serverOptions}).
     */
    public static void echoUntilDisconnected(Sides sides, int size, ConnectionOptions options, Duration openLimit,
            Duration runLimit, Runnable listening) {
        Echo echo = new Echo();
        try (ConnectedPair pair = ConnectedPair.listenAlone(sides, Math.max(4096, size),
                options.withConnectTimeout(openLimit), echo, openLimit)) {
            listening.run();
            ConnectedPair.await(echo.established, openLimit, "a client connecting to " + sides.serverAddress());
            ConnectedPair.await(echo.ended, runLimit, "the client ending its connection");
        }
    }

    /**
     * The options of the connection {@link #echoUntilDisconnected} accepts: its connect timeout (request to
     * established) is {@code openLimit}, not the options' 10 s — a cold C2-only client JVM under emulation sends its RTU
     * late (a busy-pairs boot lost a pair to the accepted side's 10 s timeout, 2026-11-28 00:22 UTC).
     */
    static ConnectionOptions serverOptions(int size, int window, Duration openLimit) {
        return options(size, window).withConnectTimeout(openLimit);
    }

    /** The connection options of a ping-pong of {@code size}-byte messages (shared with the reactive one). */
    public static ConnectionOptions options(int size) {
        return options(size, WINDOW);
    }

    /** {@link #options(int)} with a receive window of {@code window} messages (a credit update every quarter). */
    public static ConnectionOptions options(int size, int window) {
        return ConnectionOptions.DEFAULT.withSendQueueDepth(16).withReceiveWindow(window)
                .withMaxInline(Math.min(size, ConnectionOptions.DEFAULT.maxInline()));
    }

    public int size() {
        return size;
    }

    /**
     * Makes the client wait {@code nanos} (a loop timer) between a reply and its next request, so that each side's loop
     * idles that long plus a round trip (sparse traffic); 0, the default, sends at once. Any thread, between runs.
     *
     * @param nanos the pause, not negative
     */
    public void pauseBetween(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("pause < 0: " + nanos);
        }
        client.pauseNanos = nanos;
    }

    /**
     * Runs {@code roundTrips} round trips one after the other and returns their times (ns).
     *
     * @throws IllegalStateException when a side fails or the run exceeds {@code timeout}
     */
    public Histogram run(int roundTrips, Duration timeout) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        CompletableFuture<Histogram> done = client.newRun();
        pair.client.loop().execute(() -> client.start(pair.client, roundTrips, h, done));
        try {
            return pair.awaitRun(done, timeout, "ping-pong of " + roundTrips + " round trips");
        } catch (IllegalStateException e) {
            // how far it got tells a stall (no progress: a lost wake-up) from a starved run (a spinning pair on a host
            // without a free core per side goes on, but at a thousand round trips a second); a racy read, for the text
            long completed = h.getTotalCount();
            throw new IllegalStateException((completed == 0 ? "no round trip completed (stalled); "
                    : completed + " of " + roundTrips + " round trips done (slow, not stalled: starved of CPU?); ")
                    + e.getMessage(), e);
        }
    }

    /**
     * Starts round trips that never stop (until {@link #close}): for measuring the steady state from another thread
     * through {@link #roundTrips()} without handing anything to the loops per message (JMH).
     */
    public void startFreeRunning() {
        pair.client.loop().execute(() -> client.startFree(pair.client));
    }

    /** Round trips completed in free-running mode (any thread). */
    public long roundTrips() {
        return client.free;
    }

    /** Both sides' connection, QP and CQ state (a racy snapshot, for a stall). */
    public String describe() {
        return pair.describe();
    }

    @Override
    public void close() {
        pair.close();
    }

    /** The server side: sends every message back. */
    static final class Echo extends Endpoint {
        /** Completes when the peer disconnects. */
        final CompletableFuture<Void> ended = new CompletableFuture<>();

        @Override
        public void onDisconnected(Connection c) {
            ended.complete(null);
            super.onDisconnected(c);
        }

        @Override
        public void onError(Connection c, Throwable error) {
            ended.completeExceptionally(error);
            super.onError(c, error);
        }

        @Override
        public void onMessage(Connection c, Buffer message) {
            if (c.state() != ConnectionState.ESTABLISHED) { // delivered while closing: nobody waits for the echo
                message.release();
                return;
            }
            int length = message.length();
            Buffer reply = c.allocate();
            MemorySegment.copy(message.segment(), message.offset(), reply.segment(), 0, length);
            message.release();
            c.send(reply, length, 0);
        }
    }

    /** The client side: one message in flight, timed from send to echo. */
    static final class Client extends Endpoint {
        private final int size;
        private Histogram histogram;
        private CompletableFuture<Histogram> done;
        private int left;
        private long sentAt;
        /** Round trips in free-running mode; written by the loop only, read by anyone. */
        volatile long free = -1;
        /** How long the client waits between a reply and its next request (0: none), for sparse traffic. */
        volatile long pauseNanos;
        /** The next request after a pause: made once per connection, so a pause allocates no task. */
        private Runnable next;
        private Connection nextOn;

        Client(int size) {
            this.size = size;
        }

        void start(Connection c, int roundTrips, Histogram h, CompletableFuture<Histogram> d) {
            histogram = h;
            done = d;
            left = roundTrips;
            sentAt = System.nanoTime();
            send(c);
        }

        void startFree(Connection c) {
            free = 0;
            send(c);
        }

        private void send(Connection c) {
            Buffer b = c.allocate();
            b.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, left);
            c.send(b, size, left);
        }

        @Override
        public void onMessage(Connection c, Buffer message) {
            long now = System.nanoTime();
            message.release();
            if (c.state() != ConnectionState.ESTABLISHED) {
                return; // delivered while closing (after a run gave up)
            }
            if (free >= 0) {
                free++; // single writer
                send(c);
                return;
            }
            if (done == null) {
                return;
            }
            histogram.recordValue(Math.min(now - sentAt, histogram.getHighestTrackableValue()));
            if (--left > 0) {
                long pause = pauseNanos;
                if (pause > 0) {
                    if (nextOn != c) {
                        nextOn = c;
                        next = () -> {
                            if (c.state() == ConnectionState.ESTABLISHED && done != null) {
                                sentAt = System.nanoTime();
                                send(c);
                            }
                        };
                    }
                    c.loop().schedule(next, pause, java.util.concurrent.TimeUnit.NANOSECONDS);
                    return;
                }
                sentAt = now;
                send(c);
            } else {
                CompletableFuture<Histogram> d = done;
                done = null;
                d.complete(histogram);
            }
        }
    }
}
