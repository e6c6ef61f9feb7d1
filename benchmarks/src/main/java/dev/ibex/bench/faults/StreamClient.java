package dev.ibex.bench.faults;

import dev.ibex.cm.RdmaException;
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
 * The client end of a checked RC stream over cm-core callbacks: keeps {@code window} operations in flight, each one
 * verified in order (an echo, an acknowledgement, a READ's or atomic's result) releasing the next, until
 * {@code limit} are verified. What went wrong is kept, not thrown: the first unit that was not intact and next
 * ({@link #corruption()}), the error that ended the connection ({@link #error()}), an orderly end
 * ({@link #disconnected()}), and when the last unit was verified. Subclasses say what a unit is.
 *
 * <p>Threading: callbacks on the connection's loop; counters and outcomes are read from any thread.
 */
public abstract class StreamClient implements ConnectionHandler {
    protected final int stream;
    protected final int window;
    protected final int max;
    private final long limit;
    private final CompletableFuture<Connection> established = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile Connection connection;
    private volatile long posted;
    private volatile long verified;
    private volatile long completions;
    private volatile long failedOps;
    private volatile long lastProgressNanos = System.nanoTime();
    private volatile String corruption;
    private volatile Throwable error;
    private volatile long endedNanos;
    private volatile boolean disconnected;
    private volatile boolean ready;

    protected StreamClient(int stream, int window, int max, long limit) {
        this.stream = stream;
        this.window = window;
        this.max = max;
        this.limit = limit;
    }

    /** The private data a server needs to pick this stream's side: stream id and kind. */
    protected byte[] privateData() {
        return ByteBuffer.allocate(8).putInt(stream).putInt(kind()).array();
    }

    /** What kind of stream this is, for the server ({@link RegionServer} tells its modes apart by it). */
    protected abstract int kind();

    /** Connects to {@code server} on {@code loop}. */
    public StreamClient connect(EventLoop loop, InetSocketAddress server, ConnectionOptions options) {
        Connection.connect(loop, server, privateData(), options, this);
        return this;
    }

    @Override
    public final void onEstablished(Connection c) {
        connection = c;
        lastProgressNanos = System.nanoTime();
        established.complete(c);
        if (readyOnEstablished()) {
            start(c);
        }
    }

    /** Whether traffic starts at once (else when the server's first message arrives: {@link #start}). */
    protected boolean readyOnEstablished() {
        return true;
    }

    /** Fills the window (loop thread). */
    protected final void start(Connection c) {
        ready = true;
        for (int i = 0; i < window; i++) {
            postNext(c);
        }
    }

    private void postNext(Connection c) {
        if (!ready || posted >= limit || disconnected || error != null || c.state() != ConnectionState.ESTABLISHED) {
            return; // going down (completions still arrive while it drains): the connection reports why
        }
        if (post(c, posted)) {
            posted = posted + 1;
        }
    }

    /** Posts unit {@code seq}; {@code false} when no buffer was free (the next verification tries again). */
    protected abstract boolean post(Connection c, long seq);

    /**
     * Unit {@code seq} came back as {@code got} (its sequence number as found, or {@link Sequenced#CORRUPT}): checks it
     * is the next one and posts another (loop thread).
     */
    protected final void verified(Connection c, long got) {
        if (got != verified && corruption == null) {
            corruption = got == Sequenced.CORRUPT ? "unit " + verified + " of stream " + stream + " came back corrupt"
                    : "unit " + got + " of stream " + stream + " came back where " + verified + " was due";
        }
        verified = verified + 1;
        lastProgressNanos = System.nanoTime();
        postNext(c);
    }

    /** Records a violation found outside {@link #verified} (e.g. a READ's bytes). */
    protected final void corrupt(String what) {
        if (corruption == null) {
            corruption = what;
        }
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        completions = completions + 1;
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException e) {
        failedOps = failedOps + 1;
    }

    @Override
    public void onDisconnected(Connection c) {
        disconnected = true;
        ended();
    }

    @Override
    public void onError(Connection c, Throwable e) {
        error = e;
        ended();
        established.completeExceptionally(e);
    }

    @Override
    public void onClosed(Connection c) {
        ended();
        established.completeExceptionally(new IllegalStateException("closed before it was established"));
        closed.complete(null);
    }

    private void ended() {
        if (endedNanos == 0) {
            endedNanos = System.nanoTime();
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

    public long posted() {
        return posted;
    }

    /** Units verified in order (including any found out of order or corrupt). */
    public long verified() {
        return verified;
    }

    public long limit() {
        return limit;
    }

    public boolean isDone() {
        return verified >= limit;
    }

    public long failedOps() {
        return failedOps;
    }

    /** When the last unit was verified (or the connection established). */
    public long lastProgressNanos() {
        return lastProgressNanos;
    }

    /** When the connection first reported its end (error, disconnect or close), or 0. */
    public long endedNanos() {
        return endedNanos;
    }

    /** The first unit that was not intact and next, or {@code null}. */
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

    /** Whether the connection ended, one way or another. */
    public boolean hasEnded() {
        return endedNanos != 0;
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
        return getClass().getSimpleName() + " stream " + stream + ": posted " + posted + ", verified " + verified
                + "/" + limit + (corruption != null ? ", " + corruption : "") + (error != null ? ", error " + error : "")
                + (disconnected ? ", disconnected" : "") + (isClosed() ? ", closed" : "");
    }
}
