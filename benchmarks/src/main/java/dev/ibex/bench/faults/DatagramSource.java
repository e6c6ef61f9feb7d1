package dev.ibex.bench.faults;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.cm.endpoint.Membership;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends {@code limit} numbered {@link Sequenced} datagrams, {@value #BURST} every millisecond (slow enough that the
 * receiver's posted window never runs dry, so every loss is an injected one): to a UD service it resolved with SIDR,
 * or to a multicast group it joined send-only. Counts sends completed and failed.
 *
 * <p>Threading: callbacks and the pacing task on the endpoint's loop; counts are read from any thread.
 */
public final class DatagramSource implements DatagramHandler {
    static final int BURST = 4;

    private final int stream;
    private final int max;
    private final long limit;
    private final InetSocketAddress target;
    private final boolean multicast;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile Datagram datagram;
    private UdPeer peer;
    private Membership membership;
    private volatile long posted;
    private volatile long completed;
    private volatile long failed;
    private volatile Throwable error;
    private volatile boolean stopped;

    private DatagramSource(int stream, int max, long limit, InetSocketAddress target, boolean multicast) {
        this.stream = stream;
        this.max = max;
        this.limit = limit;
        this.target = target;
        this.multicast = multicast;
    }

    /** Binds to {@code local}, resolves the UD service at {@code remote}; waits until resolved. */
    public static DatagramSource unicast(EventLoop loop, InetSocketAddress local, InetSocketAddress remote, int stream,
            int max, long limit) {
        DatagramSource s = new DatagramSource(stream, max, limit, remote, false);
        Datagram.bind(loop, local, DatagramOptions.DEFAULT, s);
        return s.await("resolving " + remote);
    }

    /** Binds to {@code local}, joins {@code group} send-only; waits until joined. */
    public static DatagramSource multicast(EventLoop loop, InetSocketAddress local, InetSocketAddress group,
            int stream, int max, long limit) {
        DatagramSource s = new DatagramSource(stream, max, limit, group, true);
        Datagram.bind(loop, local, DatagramOptions.DEFAULT, s);
        return s.await("joining " + group);
    }

    private DatagramSource await(String what) {
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
        if (multicast) {
            d.join(target, true);
        } else {
            d.resolve(target, null);
        }
    }

    @Override
    public void onResolved(Datagram d, UdPeer p) {
        peer = p;
        ready.complete(null);
    }

    @Override
    public void onResolveFailed(Datagram d, InetSocketAddress remote, Throwable e) {
        ready.completeExceptionally(e);
    }

    @Override
    public void onJoined(Datagram d, Membership m) {
        membership = m;
        ready.complete(null);
    }

    @Override
    public void onMembershipError(Datagram d, Membership m, Throwable e) {
        error = e;
        ready.completeExceptionally(e);
    }

    /** Starts sending (any thread). */
    public void start() {
        datagram.loop().execute(this::burst);
    }

    private void burst() {
        Datagram d = datagram;
        if (stopped || posted >= limit) {
            return;
        }
        for (int i = 0; i < BURST && posted < limit && d.writableSlots() > 0; i++) {
            Buffer b = d.allocate();
            int n = Sequenced.write(b.segment(), 0, stream, posted, max);
            try {
                if (multicast) {
                    membership.send(b, 0, n, posted);
                } else {
                    d.send(peer, b, 0, n, posted);
                }
            } catch (RuntimeException e) {
                error = e; // closed under us
                stopped = true;
                return;
            }
            posted = posted + 1;
        }
        d.loop().schedule(this::burst, 1, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onComplete(Datagram d, long attachment) {
        completed = completed + 1;
    }

    @Override
    public void onFailed(Datagram d, long attachment, RdmaException e) {
        failed = failed + 1;
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

    public long posted() {
        return posted;
    }

    public long completed() {
        return completed;
    }

    public long failed() {
        return failed;
    }

    public Throwable error() {
        return error;
    }

    /** Whether every datagram was handed to the provider. */
    public boolean isDone() {
        return posted >= limit;
    }

    /** Stops and closes the endpoint; waits at most 10 s. */
    public void close() {
        stopped = true;
        Datagram d = datagram;
        if (d != null) {
            d.close();
            try {
                closed.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the datagram source did not close: " + e, e);
            }
        }
    }

    @Override
    public String toString() {
        return "source stream " + stream + ": posted " + posted + "/" + limit + ", completed " + completed
                + ", failed " + failed + (error != null ? ", error " + error : "");
    }
}
