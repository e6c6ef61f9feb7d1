package dev.ibex.bench.faults;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ConnectionState;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.loop.EventLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The server end of {@link EchoClient} streams: a listener that accepts every request carrying a stream id (4 bytes of
 * private data; anything else is rejected) and, per connection, checks each message is intact and next in its stream,
 * then sends it back. Outcomes per stream in {@link #stream(int)}.
 *
 * <p>Threading: callbacks on the loops; {@link Side} counters are read from any thread.
 */
public final class EchoServer implements ListenerHandler {
    private final int max;
    private final Map<Integer, Side> streams = new ConcurrentHashMap<>();
    private final CompletableFuture<Listener> listening = new CompletableFuture<>();
    private volatile long rejected;

    private EchoServer(int max) {
        this.max = max;
    }

    /** Listens on {@code address} (children on the listener's loop); waits until it listens. */
    public static EchoServer listen(EventLoop loop, InetSocketAddress address, ListenOptions options, int max) {
        EchoServer s = new EchoServer(max);
        Listener.listen(loop, address, options.withChildrenOnListenerLoop(true), s);
        try {
            s.listening.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("listening on " + address + " failed: " + e, e);
        }
        return s;
    }

    @Override
    public void onConnectionRequest(ConnectionRequest request) {
        byte[] pd = request.privateData();
        if (pd == null || pd.length < 4) {
            rejected++;
            request.reject(null);
            return;
        }
        int stream = ByteBuffer.wrap(pd).getInt();
        Side side = new Side(stream);
        streams.put(stream, side);
        request.accept(side);
    }

    @Override
    public void onListening(Listener l) {
        listening.complete(l);
    }

    @Override
    public void onError(Listener l, Throwable error) {
        listening.completeExceptionally(error);
    }

    /** The server side of stream {@code id}, or {@code null} if it never connected. */
    public Side stream(int id) {
        return streams.get(id);
    }

    /** Requests refused for carrying no stream id. */
    public long rejected() {
        return rejected;
    }

    /** Closes the listener (its connections stay). */
    public void close() {
        Listener l = listening.getNow(null);
        if (l != null) {
            l.close();
        }
    }

    /** One accepted stream: checks and echoes. */
    public final class Side implements ConnectionHandler {
        private final int stream;
        private volatile Connection connection;
        private volatile long received;
        private volatile String corruption;
        private volatile Throwable error;
        private volatile boolean closed;
        private volatile long echoFailures;

        Side(int stream) {
            this.stream = stream;
        }

        @Override
        public void onEstablished(Connection c) {
            connection = c;
        }

        @Override
        public void onMessage(Connection c, Buffer m) {
            Buffer echo = null;
            try {
                MemorySegment s = m.segment();
                long seq = Sequenced.check(s, m.offset(), m.length(), stream, max);
                if (seq != received && corruption == null) {
                    corruption = seq == Sequenced.CORRUPT ? "message " + received + " of stream " + stream
                            + " is corrupt (" + m.length() + " bytes)" : "message " + seq + " of stream " + stream
                            + " arrived where " + received + " was due";
                }
                received = received + 1;
                if (c.state() != ConnectionState.ESTABLISHED) {
                    return; // draining after a disconnect: nothing goes out any more
                }
                echo = c.tryAllocate();
                if (echo != null) {
                    MemorySegment.copy(s, m.offset(), echo.segment(), 0, m.length());
                    c.send(echo, m.length(), seq);
                    echo = null;
                } else {
                    echoFailures++;
                }
            } finally {
                m.release();
                if (echo != null) {
                    echo.release();
                }
            }
        }

        @Override
        public void onError(Connection c, Throwable e) {
            error = e;
        }

        @Override
        public void onClosed(Connection c) {
            closed = true;
        }

        public Connection connection() {
            return connection;
        }

        public long received() {
            return received;
        }

        public String corruption() {
            return corruption;
        }

        public Throwable error() {
            return error;
        }

        public boolean isClosed() {
            return closed;
        }

        public long echoFailures() {
            return echoFailures;
        }

        @Override
        public String toString() {
            return "server stream " + stream + ": received " + received + (corruption != null ? ", " + corruption : "")
                    + (error != null ? ", error " + error : "") + (closed ? ", closed" : "");
        }
    }
}
