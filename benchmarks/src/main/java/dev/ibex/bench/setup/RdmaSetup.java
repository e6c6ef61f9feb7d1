package dev.ibex.bench.setup;

import dev.ibex.bench.callback.Sides;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.loop.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;

/**
 * Ibex's connection setup through the callback API, on default connection options: a {@link Listener} on the
 * server's loop accepts every request; the client's loop runs {@code Connection.connect} (address and route
 * resolution, QP creation, REQ/REP/RTU) and counts ESTABLISHED. A run is driven on the client's loop (the next
 * connect starts in the callback that ends the previous one), so no thread hand-off is timed; the driving thread
 * only waits for the outcome. Before a run returns every connection it made is closed on both sides.
 *
 * <p><b>Threading.</b> One driving thread calls the runs; the connections live on the two loops.
 */
public final class RdmaSetup implements SetupSide {
    private final Sides sides;
    private final Sides.Loops loops;
    private final Duration timeout;
    /** Server-side connections closed so far (counted on the server's loop, read by the driving thread). */
    private final AtomicInteger serverClosed = new AtomicInteger();
    private final ConnectionHandler serverSide = new ConnectionHandler() {
        @Override
        public void onDisconnected(Connection c) {
            c.close();
        }

        @Override
        public void onClosed(Connection c) {
            serverClosed.incrementAndGet();
        }
    };
    private int serverTotal;

    private RdmaSetup(Sides sides, Sides.Loops loops, Duration timeout) {
        this.sides = sides;
        this.loops = loops;
        this.timeout = timeout;
    }

    /**
     * Opens both sides' loops and listens at the server's address.
     *
     * @param sides the soft-roce hosts (two fabrics on loopback)
     * @param timeout the bound of each wait: listening, one run, closing
     * @return the side, listening
     */
    public static RdmaSetup open(Sides sides, Duration timeout) {
        Sides.Loops loops = sides.open(4096);
        try {
            RdmaSetup s = new RdmaSetup(sides, loops, timeout);
            s.listen();
            return s;
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    private void listen() {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        Listener.listen(loops.server(), sides.serverAddress(), ListenOptions.DEFAULT.withChildrenOnListenerLoop(true),
                new ListenerHandler() {
                    @Override
                    public void onConnectionRequest(ConnectionRequest request) {
                        request.accept(serverSide);
                    }

                    @Override
                    public void onListening(Listener listener) {
                        listening.complete(null);
                    }

                    @Override
                    public void onError(Listener listener, Throwable error) {
                        listening.completeExceptionally(error);
                    }
                });
        await(listening, "listening on " + sides.serverAddress());
    }

    @Override
    public Histogram sequential(int n) {
        Run r = new Run(n, 1, true);
        r.start();
        await(r.done, "setting up " + n + " connections one at a time");
        awaitServerClosed(n);
        return r.latencies;
    }

    @Override
    public long concurrent(int n, int inFlight) {
        Run r = new Run(n, inFlight, false);
        r.start();
        long nanos = await(r.done, "setting up " + n + " connections, " + inFlight + " in flight");
        await(r.closed, "closing " + n + " connections");
        awaitServerClosed(n);
        return nanos;
    }

    /** Waits (bounded) until the server closed the {@code n} connections of the run that just ended. */
    private void awaitServerClosed(int n) {
        serverTotal += n;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (serverClosed.get() < serverTotal) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server closed " + serverClosed.get() + " of " + serverTotal
                        + " connections within " + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    @Override
    public void close() {
        loops.close();
    }

    static <T> T await(CompletableFuture<T> f, Duration timeout, String what) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + ": no outcome after " + timeout.toSeconds() + " s", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what + ": interrupted", e);
        }
    }

    private <T> T await(CompletableFuture<T> f, String what) {
        return await(f, timeout, what);
    }

    /**
     * One run on the client's loop: {@code n} connects, at most {@code inFlight} not yet established. Sequential
     * (one in flight, {@code closeEach}): each connection is closed when ESTABLISHED and the next starts when it is
     * closed, its setup latency recorded; otherwise all stay open until the last is ESTABLISHED. All callbacks run
     * on the client's loop.
     */
    private final class Run implements ConnectionHandler {
        final CompletableFuture<Long> done = new CompletableFuture<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        final Histogram latencies = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final Connection[] connections;
        /** When each connection's connect was called (the loop's connect returns before any callback). */
        final java.util.Map<Connection, Long> startedAt = new java.util.IdentityHashMap<>();
        final int inFlight;
        final boolean closeEach;
        final EventLoop loop = loops.client();
        long firstStart;
        int started;
        int up;
        int down;

        Run(int n, int inFlight, boolean closeEach) {
            this.connections = new Connection[n];
            this.inFlight = inFlight;
            this.closeEach = closeEach;
        }

        void start() {
            loop.execute(() -> {
                firstStart = System.nanoTime();
                while (started < connections.length && started - up < inFlight) {
                    next();
                }
            });
        }

        private void next() {
            long t0 = System.nanoTime();
            Connection c = Connection.connect(loop, sides.serverAddress(), null, ConnectionOptions.DEFAULT, this);
            connections[started++] = c;
            startedAt.put(c, t0);
        }

        @Override
        public void onEstablished(Connection c) {
            long now = System.nanoTime();
            latencies.recordValue(now - startedAt.get(c));
            up++;
            if (closeEach) {
                c.close(); // the next starts when this one is closed
                return;
            }
            if (up == connections.length) {
                done.complete(now - firstStart);
                for (Connection x : connections) {
                    x.close();
                }
            } else if (started < connections.length) {
                next();
            }
        }

        @Override
        public void onError(Connection c, Throwable error) {
            done.completeExceptionally(error);
            closed.completeExceptionally(error);
        }

        @Override
        public void onClosed(Connection c) {
            down++;
            if (closeEach && !done.isDone()) {
                if (started < connections.length) {
                    next();
                } else {
                    done.complete(System.nanoTime() - firstStart);
                }
            }
            if (down == connections.length) {
                closed.complete(null);
            }
            if (done.isCompletedExceptionally()) {
                for (Connection x : connections) {
                    if (x != null) {
                        x.close();
                    }
                }
            }
        }
    }
}
