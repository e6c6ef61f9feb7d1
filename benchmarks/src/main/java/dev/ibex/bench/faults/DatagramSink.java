package dev.ibex.bench.faults;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.cm.endpoint.DatagramRequest;
import dev.ibex.cm.endpoint.Membership;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The receiving end of a {@link DatagramSource}: a UD endpoint that answers SIDR requests (unicast) or joins a group
 * (multicast), and counts what arrives — new sequence numbers, duplicates, corrupt datagrams, and how many arrived
 * out of order. Loss is expected on UD; what must hold is that it is accounted for.
 *
 * <p>Threading: callbacks on the endpoint's loop; counts are read from any thread.
 */
public final class DatagramSink implements DatagramHandler {
    private final int stream;
    private final int max;
    private final CompletableFuture<Datagram> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final BitSet seen = new BitSet();
    private volatile Datagram datagram;
    private volatile long unique;
    private volatile long duplicates;
    private volatile long corrupt;
    private volatile long reordered;
    private volatile long lastArrivalNanos;
    private volatile Throwable error;
    private final InetSocketAddress group;
    private long highest = -1;

    private DatagramSink(int stream, int max, InetSocketAddress group) {
        this.stream = stream;
        this.max = max;
        this.group = group;
    }

    /** Binds to {@code address} and answers SIDR requests there; waits until bound. */
    public static DatagramSink unicast(EventLoop loop, InetSocketAddress address, int stream, int max) {
        DatagramSink s = new DatagramSink(stream, max, null);
        Datagram.bind(loop, address, DatagramOptions.DEFAULT.withListen(true).withReceiveWindow(256), s);
        return s.await("binding " + address);
    }

    /** Binds to {@code local} and joins {@code group} to receive; waits until joined. */
    public static DatagramSink multicast(EventLoop loop, InetSocketAddress local, InetSocketAddress group, int stream,
            int max) {
        DatagramSink s = new DatagramSink(stream, max, group);
        Datagram.bind(loop, local, DatagramOptions.DEFAULT.withReceiveWindow(256), s);
        return s.await("joining " + group);
    }

    private DatagramSink await(String what) {
        try {
            ready.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(what + " failed: " + e, e);
        }
        return this;
    }

    @Override
    public void onBound(Datagram d) {
        datagram = d;
        if (group == null) {
            ready.complete(d);
        } else {
            d.join(group, false);
        }
    }

    @Override
    public void onJoined(Datagram d, Membership m) {
        ready.complete(d);
    }

    @Override
    public void onMembershipError(Datagram d, Membership m, Throwable e) {
        error = e;
        ready.completeExceptionally(e);
    }

    @Override
    public void onRequest(Datagram d, DatagramRequest request) {
        request.accept(null);
    }

    @Override
    public void onMessage(Datagram d, Buffer m) {
        long seq;
        try {
            seq = Sequenced.check(m.segment(), m.offset(), m.length(), stream, max);
        } finally {
            m.release();
        }
        lastArrivalNanos = System.nanoTime();
        if (seq == Sequenced.CORRUPT || seq > Integer.MAX_VALUE) {
            corrupt = corrupt + 1;
            return;
        }
        if (seen.get((int) seq)) {
            duplicates = duplicates + 1;
            return;
        }
        seen.set((int) seq);
        unique = unique + 1;
        if (seq < highest) {
            reordered = reordered + 1;
        }
        highest = Math.max(highest, seq);
    }

    @Override
    public void onError(Datagram d, Throwable e) {
        error = e;
        ready.completeExceptionally(e);
    }

    @Override
    public void onClosed(Datagram d) {
        closed.complete(null);
    }

    /** The endpoint (its QP counts what it dropped on arrival). */
    public Datagram datagram() {
        return datagram;
    }

    /** The endpoint's address (for a source to resolve). */
    public InetSocketAddress address() {
        return datagram.localAddress();
    }

    public long unique() {
        return unique;
    }

    public long duplicates() {
        return duplicates;
    }

    public long corrupt() {
        return corrupt;
    }

    public long reordered() {
        return reordered;
    }

    public long lastArrivalNanos() {
        return lastArrivalNanos;
    }

    public Throwable error() {
        return error;
    }

    /** Closes the endpoint (leaving its group) and waits at most 10 s. */
    public void close() {
        Datagram d = datagram;
        if (d != null) {
            d.close();
            try {
                closed.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the datagram sink did not close: " + e, e);
            }
        }
    }

    @Override
    public String toString() {
        return "sink stream " + stream + ": unique " + unique + ", duplicates " + duplicates + ", corrupt " + corrupt
                + ", reordered " + reordered + (error != null ? ", error " + error : "");
    }
}
