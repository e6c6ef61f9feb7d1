package dev.ibex.bench.callback;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionState;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.loop.EventLoop;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Many RC connections echoing small messages at once: {@code connections} connections between one client group and
 * one server group of {@code loops} loops each (the client spreads its connects over its loops round-robin, the
 * listener its children over the server's loops), every client keeping {@code inFlight} SENDs outstanding and sending
 * the next as each echo arrives; the server answers each message with one of the same size. Both sides post only what
 * the connection takes ({@link Connection#writableSlots()}: send queue and credits) and the rest on
 * {@code onWritabilityChanged(true)}. {@link #run} measures the aggregate echo rate over a window.
 *
 * <p><b>Threading.</b> {@link #run} and {@link #close} from one driving thread; everything per message on the loops.
 */
public final class EchoFleet implements AutoCloseable {
    private final Sides.Loops loops;
    private final List<Client> clients;
    private final List<Connection> connections;
    private final int inFlight;
    private volatile boolean running;

    private EchoFleet(Sides.Loops loops, List<Client> clients, List<Connection> connections, int inFlight) {
        this.loops = loops;
        this.clients = clients;
        this.connections = connections;
        this.inFlight = inFlight;
    }

    /**
     * Opens the groups of {@code sides} (two fabrics) with {@code loops} loops each and connects {@code connections}
     * clients, each for {@code size}-byte messages with {@code inFlight} of them outstanding.
     *
     * @throws IllegalArgumentException when {@code sides} has one fabric (the fleet needs a group per side)
     * @throws IllegalStateException when listening or a connection fails or takes longer than {@code timeout}
     */
    public static EchoFleet open(Sides sides, int loops, int connections, int size, int inFlight, Duration timeout) {
        if (sides.clientConfig() == null) {
            throw new IllegalArgumentException("an echo fleet needs two fabrics (a client and a server group)");
        }
        // a SEND's slot comes back with its (possibly deferred) ACK, after the peer may have answered it: the echo's
        // send queue needs room beyond the requests in flight
        ConnectionOptions options = ConnectionOptions.DEFAULT.withSendQueueDepth(8 * inFlight)
                .withReceiveWindow(4 * inFlight).withMaxInline(Math.min(size, ConnectionOptions.DEFAULT.maxInline()));
        Sides.Loops l = sides.open(Math.max(256, size), loops);
        try {
            CompletableFuture<Void> listening = new CompletableFuture<>();
            Listener.listen(l.server(), sides.serverAddress(), ListenOptions.DEFAULT.withChildrenOnListenerLoop(false)
                    .withConnection(options).withHalfOpen(1024, 1024), // all connects come at once from one source
                    new ListenerHandler() {
                        @Override
                        public void onConnectionRequest(dev.ibex.cm.endpoint.ConnectionRequest request) {
                            request.accept(new Echo(size));
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
            ConnectedPair.await(listening, timeout, "listening on " + sides.serverAddress());
            List<Client> clients = new ArrayList<>();
            List<EventLoop> clientLoops = l.clientGroup().loops();
            for (int i = 0; i < connections; i++) {
                Client c = new Client(size, inFlight);
                clients.add(c);
                Connection.connect(clientLoops.get(i % clientLoops.size()), sides.serverAddress(), null, options, c);
            }
            List<Connection> established = new ArrayList<>();
            for (Client c : clients) {
                established.add(ConnectedPair.await(c.established, timeout, "connecting " + connections
                        + " clients to " + sides.serverAddress()));
            }
            EchoFleet fleet = new EchoFleet(l, clients, established, inFlight);
            for (Client c : clients) {
                c.fleet = fleet;
            }
            return fleet;
        } catch (RuntimeException e) {
            l.close();
            throw e;
        }
    }

    /** Connections in the fleet. */
    public int connections() {
        return connections.size();
    }

    /**
     * Starts every client, counts the echoes arriving during {@code window} (after a tenth of it to settle), stops
     * sending and waits until every outstanding echo is back.
     *
     * @return echoes per second over the window, all connections together
     * @throws IllegalStateException when a side fails or the echoes do not drain within {@code limit}
     */
    public double run(Duration window, Duration limit) {
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (Client c : clients) {
            runs.add(c.newRun()); // completed exceptionally when that side fails
        }
        running = true;
        for (int i = 0; i < clients.size(); i++) {
            Client c = clients.get(i);
            Connection conn = connections.get(i);
            conn.loop().execute(() -> c.start(conn));
        }
        LockSupport.parkNanos(window.toNanos() / 10);
        long n0 = echoes();
        long t0 = System.nanoTime();
        LockSupport.parkNanos(window.toNanos());
        long n1 = echoes();
        long t1 = System.nanoTime();
        running = false;
        for (int i = 0; i < clients.size(); i++) { // drop what is due but unsent: no echo will come for it
            Client c = clients.get(i);
            Connection conn = connections.get(i);
            conn.loop().execute(() -> c.stop(conn));
        }
        long deadline = System.nanoTime() + limit.toNanos();
        while (outstanding() > 0) {
            throwIfFailed(runs);
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(outstanding() + " of " + clients.size() * inFlight + " echoes "
                        + "still outstanding " + limit.toSeconds() + " s after the window");
            }
            LockSupport.parkNanos(1_000_000);
        }
        throwIfFailed(runs);
        return (n1 - n0) / ((t1 - t0) / 1e9);
    }

    /**
     * A provider counter ({@link dev.ibex.cm.spi.RdmaCounter}, e.g. soft-roce's {@code retransmissions}) summed over
     * both groups; 0 where the provider has no such counter.
     */
    public long counter(String name) {
        return java.util.stream.Stream.of(loops.clientGroup(), loops.serverGroup())
                .flatMap(g -> g.fabric().counters().stream()).filter(c -> c.name().equals(name))
                .mapToLong(c -> c.value().getAsLong()).sum();
    }

    private static void throwIfFailed(List<CompletableFuture<Void>> runs) {
        for (CompletableFuture<Void> r : runs) {
            if (r.isCompletedExceptionally()) {
                ConnectedPair.await(r, Duration.ZERO, "the echo fleet");
            }
        }
    }

    private long echoes() {
        long n = 0;
        for (Client c : clients) {
            n += c.echoes;
        }
        return n;
    }

    private long outstanding() {
        long n = 0;
        for (Client c : clients) {
            n += c.outstanding;
        }
        return n;
    }

    @Override
    public void close() {
        loops.close();
    }

    /**
     * Sends up to {@code due} messages while the connection takes them ({@link Connection#writableSlots()}: send
     * queue and the peer's credits); what it cannot take waits for {@code onWritabilityChanged(true)}.
     *
     * @return the messages sent
     */
    static int flush(Connection c, int due, int size) {
        int sent = 0;
        while (sent < due && c.writableSlots() > 0) {
            Buffer b = c.allocate();
            b.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, sent);
            c.send(b, size, 0);
            sent++;
        }
        return sent;
    }

    /**
     * The server side: echoes every message (a fresh message of the same size); echoes the connection cannot take
     * yet (a credit update still on its way) wait for writability instead of failing.
     */
    static final class Echo extends Endpoint {
        private final int size;
        private int due;

        Echo(int size) {
            this.size = size;
        }

        @Override
        public void onMessage(Connection c, Buffer message) {
            message.release();
            if (c.state() != ConnectionState.ESTABLISHED) { // delivered while closing: nobody waits for the echo
                return;
            }
            due++;
            due -= flush(c, due, size);
        }

        @Override
        public void onWritabilityChanged(Connection c, boolean writable) {
            if (writable && due > 0 && c.state() == ConnectionState.ESTABLISHED) {
                due -= flush(c, due, size);
            }
        }
    }

    /** A client: {@code inFlight} SENDs outstanding while the fleet runs, one more per echo. */
    static final class Client extends Endpoint {
        private final int size;
        private final int inFlight;
        EchoFleet fleet;
        /** Echoes received (written by the loop only, read by the driver). */
        volatile long echoes;
        /** SENDs posted whose echo has not arrived, plus those due but not yet posted (written by the loop only). */
        volatile int outstanding;
        /** SENDs due but not yet posted: the connection could not take them. */
        private int due;

        Client(int size, int inFlight) {
            this.size = size;
            this.inFlight = inFlight;
        }

        void start(Connection c) {
            due += inFlight;
            outstanding = outstanding + inFlight; // single writer: the loop
            send(c);
        }

        private void send(Connection c) {
            if (!fleet.running || c.state() != ConnectionState.ESTABLISHED) { // what is due is not sent: no echo owed
                outstanding = outstanding - due;
                due = 0;
                return;
            }
            due -= flush(c, due, size);
        }

        void stop(Connection c) {
            if (due > 0) {
                send(c);
            }
        }

        @Override
        public void onMessage(Connection c, Buffer message) {
            message.release();
            echoes = echoes + 1; // single writer: the loop
            outstanding = outstanding - 1;
            if (fleet.running && c.state() == ConnectionState.ESTABLISHED) {
                due++;
                outstanding = outstanding + 1;
            }
            send(c);
        }

        @Override
        public void onWritabilityChanged(Connection c, boolean writable) {
            if (writable && due > 0) {
                send(c);
            }
        }
    }
}
