package dev.ibex.bench.faults;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionState;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The client end of a sequenced echo stream over RC SEND/RECV (cm-core callbacks): keeps {@code window}
 * {@link Sequenced} messages in flight, each echo releasing the next one, and checks that echoes come back intact, in
 * order and exactly once. What went wrong is kept, not thrown: {@link #corruption()}, {@link #error()}.
 *
 * <p>Threading: callbacks on the connection's loop; the counters and outcomes are read from any thread.
 */
public final class EchoClient implements ConnectionHandler {
    private final int stream;
    private final int window;
    private final int max;
    private final long limit;
    private final CompletableFuture<Connection> established = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile Connection connection;
    private volatile long sent;
    private volatile long echoed;
    private volatile long failedOps;
    private volatile long lastProgressNanos = System.nanoTime();
    private volatile String corruption;
    private volatile Throwable error;
    private volatile boolean disconnected;
    private volatile boolean paused;

    /**
     * @param stream the stream id (sent to the server as private data)
     * @param window messages in flight
     * @param max the largest message (at most the buffer size)
     * @param limit messages to send in all ({@link Long#MAX_VALUE}: until closed)
     */
    public EchoClient(int stream, int window, int max, long limit) {
        this.stream = stream;
        this.window = window;
        this.max = max;
        this.limit = limit;
    }

    /** Connects to {@code server} on {@code loop}. */
    public EchoClient connect(EventLoop loop, InetSocketAddress server, ConnectionOptions options) {
        byte[] pd = ByteBuffer.allocate(4).putInt(stream).array();
        Connection.connect(loop, server, pd, options, this);
        return this;
    }

    @Override
    public void onEstablished(Connection c) {
        connection = c;
        lastProgressNanos = System.nanoTime();
        established.complete(c);
        for (int i = 0; i < window; i++) {
            sendNext(c);
        }
    }

    private void sendNext(Connection c) {
        if (paused || sent >= limit || disconnected || error != null || c.state() != ConnectionState.ESTABLISHED) {
            return; // going down (messages still arrive while it drains): the connection reports why
        }
        Buffer b = c.tryAllocate();
        if (b == null) {
            return; // the pool is exhausted: the next echo tries again
        }
        int n = Sequenced.write(b.segment(), 0, stream, sent, max);
        c.send(b, n, sent);
        sent = sent + 1;
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        try {
            long seq = Sequenced.check(message.segment(), message.offset(), message.length(), stream, max);
            if (seq != echoed && corruption == null) {
                corruption = seq == Sequenced.CORRUPT ? "echo " + echoed + " of stream " + stream + " is corrupt ("
                        + message.length() + " bytes)" : "echo " + seq + " of stream " + stream + " arrived where "
                        + echoed + " was due";
            }
            echoed = echoed + 1;
            lastProgressNanos = System.nanoTime();
        } finally {
            message.release();
        }
        sendNext(c);
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException e) {
        failedOps = failedOps + 1;
    }

    @Override
    public void onDisconnected(Connection c) {
        disconnected = true;
    }

    @Override
    public void onError(Connection c, Throwable e) {
        error = e;
        established.completeExceptionally(e);
    }

    @Override
    public void onClosed(Connection c) {
        established.completeExceptionally(new IllegalStateException("closed before it was established"));
        closed.complete(null);
    }

    /** Stops sending new messages (those in flight still come back); {@link #resume()} starts again. */
    public void pause() {
        paused = true;
    }

    /** Sends again, refilling the window (on the connection's loop). */
    public void resume() {
        paused = false;
        Connection c = connection;
        if (c != null) {
            c.loop().execute(() -> {
                long inFlight = sent - echoed;
                for (long i = inFlight; i < window; i++) {
                    sendNext(c);
                }
            });
        }
    }

    public int stream() {
        return stream;
    }

    public CompletableFuture<Connection> established() {
        return established;
    }

    public CompletableFuture<Void> closed() {
        return closed;
    }

    /** The connection once established, else {@code null}. */
    public Connection connection() {
        return connection;
    }

    public long sent() {
        return sent;
    }

    public long echoed() {
        return echoed;
    }

    public long failedOps() {
        return failedOps;
    }

    /** When the last echo arrived (or the connection was established). */
    public long lastProgressNanos() {
        return lastProgressNanos;
    }

    /** The first echo that was not intact and in order, or {@code null}. */
    public String corruption() {
        return corruption;
    }

    /** What {@code onError} reported, or {@code null}. */
    public Throwable error() {
        return error;
    }

    public boolean disconnected() {
        return disconnected;
    }

    public boolean isClosed() {
        return closed.isDone();
    }

    /** Closes the connection (any thread). */
    public void close() {
        Connection c = connection;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public String toString() {
        return "stream " + stream + ": sent " + sent + ", echoed " + echoed + (corruption != null ? ", " + corruption
                : "") + (error != null ? ", error " + error : "") + (disconnected ? ", disconnected" : "")
                + (isClosed() ? ", closed" : "");
    }
}
