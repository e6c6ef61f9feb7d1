package dev.ibex.bench.callback;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.Operation;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;

/**
 * A stream of one-sided traffic over the callback API, as perftest's {@code ib_send_bw} / {@code ib_write_bw} do
 * it: the client keeps its send queue full of {@code size}-byte SENDs (the server releases each message at once)
 * or RDMA WRITEs (into one buffer the server exposed for WRITE and announced in its first message), and a run is timed
 * from the first post to the last completion.
 */
public final class Throughput implements AutoCloseable {
    /** What the client posts. */
    public enum Kind { SEND, WRITE }

    private final ConnectedPair pair;
    private final Client client;
    private final Kind kind;
    private final int size;

    private Throughput(ConnectedPair pair, Client client, Kind kind, int size) {
        this.pair = pair;
        this.client = client;
        this.kind = kind;
        this.size = size;
    }

    /**
     * Connects the two sides of {@code sides}.
     *
     * @param queueDepth the client's send queue depth (perftest's {@code --tx-depth}, 128 by default)
     * @param receiveWindow receives the server keeps posted (perftest's {@code --rx-depth}, 512 by default)
     */
    public static Throughput open(Sides sides, Kind kind, int size, int queueDepth, int receiveWindow,
            Duration timeout) {
        ConnectionOptions options = ConnectionOptions.DEFAULT.withSendQueueDepth(queueDepth)
                .withReceiveWindow(receiveWindow).withMaxInline(Math.min(size, ConnectionOptions.DEFAULT.maxInline()));
        Client client = new Client(kind, size);
        ConnectedPair pair = ConnectedPair.open(sides, Math.max(4096, size), options, new Server(kind), client,
                timeout);
        if (kind == Kind.WRITE) {
            ConnectedPair.await(client.target, timeout, "the server's write target");
        }
        return new Throughput(pair, client, kind, size);
    }

    public Kind kind() {
        return kind;
    }

    public int size() {
        return size;
    }

    /**
     * Posts {@code messages} operations and returns the nanoseconds from the first post to the last completion.
     */
    public long run(int messages, Duration timeout) {
        CompletableFuture<Long> done = client.newRun();
        pair.client.loop().execute(() -> client.start(pair.client, messages, done));
        return pair.awaitRun(done, timeout, kind + " stream of " + messages + " x " + size + " B");
    }

    /**
     * A provider counter ({@link dev.ibex.cm.spi.RdmaCounter}, e.g. soft-roce's {@code retransmissions}) summed over
     * both sides' groups (once when they share one); 0 where the provider has no such counter.
     */
    public long counter(String name) {
        Sides.Loops l = pair.loops;
        return (l.serverGroup() == l.clientGroup() ? java.util.stream.Stream.of(l.clientGroup())
                : java.util.stream.Stream.of(l.clientGroup(), l.serverGroup()))
                .flatMap(g -> g.fabric().counters().stream()).filter(c -> c.name().equals(name))
                .mapToLong(c -> c.value().getAsLong()).sum();
    }

    @Override
    public void close() {
        pair.close();
    }

    /** The server: releases every message; for WRITE, first announces its target buffer. */
    static final class Server extends Endpoint {
        private final Kind kind;
        private Buffer target;
        private Exposure exposure;

        Server(Kind kind) {
            this.kind = kind;
        }

        @Override
        public void onEstablished(Connection c) {
            if (kind == Kind.WRITE) {
                target = c.allocate(); // held for the connection's life: the peer writes into it
                exposure = c.expose(target, 0, target.capacity(), EnumSet.of(RemoteAccess.WRITE), 0);
            }
            super.onEstablished(c);
        }

        @Override
        public void onComplete(Connection c, Operation op, long attachment) {
            if (op == Operation.BIND_MW) { // the window works: announce it
                Buffer announce = c.allocate();
                exposure.remote().encode(announce.segment(), 0);
                c.send(announce, RemoteBuffer.BYTES, 0);
            }
        }

        @Override
        public void onClosed(Connection c) {
            if (target != null) {
                target.release();
                target = null;
            }
        }
    }

    /** The client: keeps the send queue full until the run's count is posted, counts completions. */
    static final class Client extends Endpoint {
        final CompletableFuture<RemoteBuffer> target = new CompletableFuture<>();
        private final Kind kind;
        private final int size;
        private RemoteBuffer remote;
        private CompletableFuture<Long> done;
        private int total;
        private int posted;
        private int completed;
        private long startedAt;

        Client(Kind kind, int size) {
            this.kind = kind;
            this.size = size;
        }

        @Override
        public void onMessage(Connection c, Buffer message) {
            if (kind == Kind.WRITE && remote == null) {
                remote = RemoteBuffer.decode(message.segment(), message.offset()).slice(0, size);
                target.complete(remote);
            }
            message.release();
        }

        void start(Connection c, int messages, CompletableFuture<Long> d) {
            done = d;
            total = messages;
            posted = 0;
            completed = 0;
            startedAt = System.nanoTime();
            fill(c);
        }

        private void fill(Connection c) {
            while (posted < total && c.writableSlots() > 0) {
                Buffer b = c.tryAllocate();
                if (b == null) {
                    return; // buffers come back with completions
                }
                if (kind == Kind.WRITE) {
                    c.write(b, 0, size, remote, 0, posted);
                } else {
                    c.send(b, size, posted);
                }
                posted++;
            }
        }

        /** Credits came back (a SEND stream outruns the receiver's window; its updates end the wait). */
        @Override
        public void onWritabilityChanged(Connection c, boolean writable) {
            if (writable && done != null) {
                fill(c);
            }
        }

        @Override
        public void onComplete(Connection c, Operation op, long attachment) {
            if (done == null) {
                return;
            }
            if (++completed == total) {
                CompletableFuture<Long> d = done;
                done = null;
                d.complete(System.nanoTime() - startedAt);
            } else {
                fill(c);
            }
        }
    }
}
