package dev.ibex.bench.faults;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ConnectionState;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.loop.EventLoop;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The server end of {@link StreamClient} streams: a listener that accepts every request carrying a stream id and kind
 * (private data; anything else is rejected) and serves it — an echo stream ({@link EchoClient}) checks and sends back
 * each message; a region stream ({@link RegionClient}) gets a registered region it writes into (checked and
 * acknowledged here), reads from or applies atomics to. Outcomes per stream: {@link #stream(int)}.
 *
 * <p>Threading: callbacks on the loops; {@link Side} counters are read from any thread.
 */
public final class StreamServer implements ListenerHandler {
    private final int max;
    private final Map<Integer, Side> streams = new ConcurrentHashMap<>();
    private final CompletableFuture<Listener> listening = new CompletableFuture<>();
    private volatile long rejected;

    private StreamServer(int max) {
        this.max = max;
    }

    /** Listens on {@code address} (children on the listener's loop); waits until it listens. */
    public static StreamServer listen(EventLoop loop, InetSocketAddress address, ListenOptions options, int max) {
        StreamServer s = new StreamServer(max);
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
        ByteBuffer b = ByteBuffer.wrap(pd);
        int stream = b.getInt();
        int kind = pd.length >= 8 ? b.getInt() : EchoClient.KIND;
        Side side = kind == EchoClient.KIND ? new EchoSide(stream) : new RegionSide(stream, kind);
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

    /** Forgets stream {@code id} (a soak that opens thousands keeps only the live ones). */
    public void forget(int id) {
        streams.remove(id);
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

    /** One accepted stream. */
    public abstract static class Side implements ConnectionHandler {
        protected final int stream;
        private volatile Connection connection;
        private volatile long received;
        private volatile String corruption;
        private volatile Throwable error;
        private volatile boolean closed;

        Side(int stream) {
            this.stream = stream;
        }

        @Override
        public void onEstablished(Connection c) {
            connection = c;
        }

        /** Unit {@code got} (or {@link Sequenced#CORRUPT}) arrived; checks it is the next one. */
        protected final void arrived(long got, String what) {
            if (got != received && corruption == null) {
                corruption = got == Sequenced.CORRUPT ? what + " " + received + " of stream " + stream
                        + " is corrupt" : what + " " + got + " of stream " + stream + " arrived where " + received
                        + " was due";
            }
            received = received + 1;
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

        @Override
        public String toString() {
            return "server stream " + stream + ": received " + received + (corruption != null ? ", " + corruption : "")
                    + (error != null ? ", error " + error : "") + (closed ? ", closed" : "");
        }
    }

    /** Checks each message and sends it back. */
    final class EchoSide extends Side {
        EchoSide(int stream) {
            super(stream);
        }

        @Override
        public void onMessage(Connection c, Buffer m) {
            try {
                MemorySegment s = m.segment();
                long seq = Sequenced.check(s, m.offset(), m.length(), stream, max);
                arrived(seq, "message");
                if (c.state() != ConnectionState.ESTABLISHED) {
                    return; // draining after a disconnect: nothing goes out any more
                }
                Buffer echo = c.tryAllocate();
                if (echo != null) {
                    MemorySegment.copy(s, m.offset(), echo.segment(), 0, m.length());
                    c.send(echo, m.length(), seq);
                }
            } finally {
                m.release();
            }
        }
    }

    /**
     * A region of {@link RegionClient#SLOTS} slots of {@link RegionClient#SLOT} bytes exposed to the peer with the one
     * right its stream needs, the exposure's descriptor sent as the first message: WRITEs land in it (each checked and acknowledged with its sequence number), READs find a
     * {@link Sequenced} record of the slot's number in each slot, atomics work on its first 8 bytes.
     */
    final class RegionSide extends Side {
        private static final long EXPOSED = -2;
        private final int kind;
        private Buffer region;
        private Exposure exposure;

        RegionSide(int stream, int kind) {
            super(stream);
            this.kind = kind;
        }

        @Override
        public void onEstablished(Connection c) {
            super.onEstablished(c);
            region = c.allocate();
            MemorySegment s = region.segment();
            s.fill((byte) 0);
            if (kind == RegionClient.READ) {
                for (int slot = 0; slot < RegionClient.SLOTS; slot++) {
                    Sequenced.write(s, (long) slot * RegionClient.SLOT, stream, slot, RegionClient.SLOT);
                }
            }
            // exactly the region's bytes, with exactly the right the stream needs; its descriptor goes out once bound
            exposure = c.expose(region, 0, RegionClient.SLOTS * RegionClient.SLOT, EnumSet.of(switch (kind) {
                case RegionClient.WRITE -> RemoteAccess.WRITE;
                case RegionClient.READ -> RemoteAccess.READ;
                default -> RemoteAccess.ATOMIC;
            }), EXPOSED);
        }

        @Override
        public void onComplete(Connection c, Operation op, long attachment) {
            if (op == Operation.BIND_MW && attachment == EXPOSED && c.state() == ConnectionState.ESTABLISHED) {
                Buffer d = c.allocate();
                exposure.remote().encode(d.segment(), 0);
                c.send(d, RemoteBuffer.BYTES, -1);
            }
        }

        @Override
        public void onFailed(Connection c, Operation op, long attachment, dev.ibex.cm.RdmaException e) {
            if (op == Operation.BIND_MW) {
                arrived(Sequenced.CORRUPT, "the region's exposure failed (" + e + "):");
            }
        }

        @Override
        public void onRemoteWrite(Connection c, int imm, int length) {
            long seq = Integer.toUnsignedLong(imm);
            long at = (seq % RegionClient.SLOTS) * RegionClient.SLOT;
            long got = Sequenced.check(region.segment(), at, length, stream, RegionClient.SLOT);
            arrived(got == seq ? seq : Sequenced.CORRUPT, "write");
            if (c.state() != ConnectionState.ESTABLISHED) {
                return;
            }
            Buffer ack = c.tryAllocate();
            if (ack != null) {
                ack.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
                c.send(ack, 8, seq);
            }
        }

        @Override
        public void onClosed(Connection c) {
            if (region != null) {
                region.release(); // back to the pool once the exposure's key is dead
                region = null;
            }
            super.onClosed(c);
        }
    }
}
