package dev.ibex.bench.callback;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.loop.EventLoop;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Connection setup rate through the callback API, as rdma-core's {@code cmtime} client measures it: {@code n}
 * connections are started at once ({@code Connection.connect}: address and route resolution, QP creation,
 * connect) and the run is timed until the last is ESTABLISHED; then all are closed and awaited. The server is
 * whatever listens at the address (cmtime's C server in the VM, so both clients meet the same peer).
 */
public final class ConnectionSetup implements AutoCloseable {
    /** The QP cmtime creates: one send and one receive WR, one SGE each, nothing inline. */
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withSendQueueDepth(1).withReceiveWindow(1)
            .withMaxInline(0);

    private final Sides sides;
    private final Sides.Loops loops;

    private ConnectionSetup(Sides sides, Sides.Loops loops) {
        this.sides = sides;
        this.loops = loops;
    }

    /** Opens the loops of {@code sides} (only the client's is used). */
    public static ConnectionSetup open(Sides sides) {
        return new ConnectionSetup(sides, sides.open(4096));
    }

    /**
     * Connects {@code n} connections at once, closes them, and returns the nanoseconds from the first connect to
     * the last ESTABLISHED.
     */
    public long run(int n, Duration timeout) {
        Run r = new Run(n);
        EventLoop loop = loops.client();
        loop.execute(() -> {
            r.startedAt = System.nanoTime();
            for (int i = 0; i < n; i++) {
                r.connections[i] = Connection.connect(loop, sides.serverAddress(), null, OPTIONS, r);
            }
        });
        long nanos = ConnectedPair.await(r.established, timeout, "setting up " + n + " connections");
        ConnectedPair.await(r.closed, timeout, "closing " + n + " connections");
        return nanos;
    }

    @Override
    public void close() {
        loops.close();
    }

    /** One run's connections; all callbacks on the loop. */
    private static final class Run implements ConnectionHandler {
        final CompletableFuture<Long> established = new CompletableFuture<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        final Connection[] connections;
        long startedAt;
        int up;
        int down;

        Run(int n) {
            connections = new Connection[n];
        }

        @Override
        public void onEstablished(Connection c) {
            if (++up == connections.length) {
                established.complete(System.nanoTime() - startedAt);
                for (Connection x : connections) {
                    x.close();
                }
            }
        }

        @Override
        public void onError(Connection c, Throwable error) {
            established.completeExceptionally(error);
        }

        @Override
        public void onClosed(Connection c) {
            if (++down == connections.length) {
                closed.complete(null);
            }
            if (established.isCompletedExceptionally()) {
                for (Connection x : connections) {
                    if (x != null) {
                        x.close();
                    }
                }
            }
        }
    }
}
