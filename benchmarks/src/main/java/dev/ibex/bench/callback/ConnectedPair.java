package dev.ibex.bench.callback;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.transport.SoftCompletionQueue;
import dev.ibex.softroce.transport.SoftQueuePair;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One RC connection between the server group and the client group of {@link Sides}, both sides established,
 * each driven by its {@link Endpoint}. Closing closes both groups (and with them the listener and connection).
 */
final class ConnectedPair implements AutoCloseable {
    final Sides.Loops loops;
    final Connection client;
    final Connection server;

    private ConnectedPair(Sides.Loops loops, Connection client, Connection server) {
        this.loops = loops;
        this.client = client;
        this.server = server;
    }

    static ConnectedPair open(Sides sides, int bufferSize, ConnectionOptions options, Endpoint serverSide,
            Endpoint clientSide, Duration timeout) {
        Sides.Loops loops = sides.open(bufferSize);
        try {
            listen(loops.server(), sides, options, serverSide, timeout);
            Connection client = connect(loops.client(), sides, options, clientSide, timeout);
            Connection server = await(serverSide.established, timeout, "accepting at " + sides.serverAddress());
            return new ConnectedPair(loops, client, server);
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    /**
     * The server half alone, for a client in another process: one loop of {@code sides}' server settings listening,
     * its one connection driven by {@code serverSide} once it comes.
     */
    static ConnectedPair listenAlone(Sides sides, int bufferSize, ConnectionOptions options, Endpoint serverSide,
            Duration timeout) {
        Sides.Loops loops = sides.openOneSide(bufferSize, true);
        try {
            listen(loops.server(), sides, options, serverSide, timeout);
            return new ConnectedPair(loops, null, null);
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    /** The client half alone, connected to a server in another process: one loop of {@code sides}' settings. */
    static ConnectedPair connectAlone(Sides sides, int bufferSize, ConnectionOptions options, Endpoint clientSide,
            Duration timeout) {
        Sides.Loops loops = sides.openOneSide(bufferSize, false);
        try {
            return new ConnectedPair(loops, connect(loops.client(), sides, options, clientSide, timeout), null);
        } catch (RuntimeException e) {
            loops.close();
            throw e;
        }
    }

    private static void listen(EventLoop loop, Sides sides, ConnectionOptions options, Endpoint serverSide,
            Duration timeout) {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        Listener.listen(loop, sides.serverAddress(),
                ListenOptions.DEFAULT.withChildrenOnListenerLoop(true).withConnection(options),
                new dev.ibex.cm.endpoint.ListenerHandler() {
                    @Override
                    public void onConnectionRequest(dev.ibex.cm.endpoint.ConnectionRequest request) {
                        request.accept(serverSide);
                    }

                    @Override
                    public void onListening(Listener l) {
                        listening.complete(null);
                    }

                    @Override
                    public void onError(Listener l, Throwable error) {
                        listening.completeExceptionally(error);
                    }
                });
        await(listening, timeout, "listening on " + sides.serverAddress());
    }

    private static Connection connect(EventLoop loop, Sides sides, ConnectionOptions options, Endpoint clientSide,
            Duration timeout) {
        Connection.connect(loop, sides.serverAddress(), null, options, clientSide);
        return await(clientSide.established, timeout, "connecting to " + sides.serverAddress());
    }

    /** Waits for {@code f} at most {@code timeout}; a failure or timeout becomes an unchecked exception. */
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

    /** Both connections' state and, on soft-roce, their QPs' transport state (a racy snapshot for a hang). */
    String describe() {
        return (client == null ? "" : "client " + describe(client)) + (client != null && server != null ? "; " : "")
                + (server == null ? "" : "server " + describe(server));
    }

    private static String describe(Connection c) {
        QueuePair qp = c.qp();
        return c + " posted receives " + c.postedReceives() + ", held " + c.heldMessages() + ", qp "
                + (qp instanceof SoftQueuePair soft ? soft.describe() : String.valueOf(qp)) + ", cq " + cqOf(c);
    }

    /** Completions waiting in the loop's shared CQ of the connection's device (asked on the loop). */
    private static String cqOf(Connection c) {
        try {
            return c.loop().submit(() -> {
                var cq = c.loop().device(c.device()).sharedCq();
                return cq instanceof SoftCompletionQueue soft ? soft.size() + " waiting, " + soft.unackedEvents()
                        + " events unacked" : String.valueOf(cq);
            }).get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            return "unknown (" + e + ")";
        }
    }

    /** {@link #await} that adds {@link #describe()} to a timeout or failure. */
    <T> T awaitRun(CompletableFuture<T> f, Duration timeout, String what) {
        try {
            return await(f, timeout, what);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n  " + describe(), e);
        }
    }

    @Override
    public void close() {
        loops.close();
    }
}
