package dev.ibex.bench.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The baseline of {@code dev.ibex.bench.callback.EchoFleet}: {@code pairs} pairs of connected non-blocking
 * {@link DatagramChannel}s on the soft devices' addresses, served by as many threads per side as the fleet has loops
 * per side — each thread a {@link Selector} over its share of the sockets (socket {@code i} on thread
 * {@code i % threads}), as an event loop serves its connections. Server threads echo every datagram; client threads
 * keep {@code inFlight} datagrams outstanding per socket and send the next as each echo arrives. No acknowledgements,
 * no ordering, no flow control beyond the in-flight count: what plain Java does with the same sockets and threads.
 *
 * <p><b>Threading.</b> {@link #run} and {@link #close} from one driving thread; the sockets belong to their threads.
 */
public final class UdpEchoFleet implements AutoCloseable {
    private final List<DatagramChannel> channels = new ArrayList<>();
    private final List<Side> clients = new ArrayList<>();
    private final List<Side> servers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final int inFlight;
    private volatile boolean running;
    /** Bumped by each run; a client thread starts its sockets when it sees a new value. */
    private volatile int generation;

    private UdpEchoFleet(int inFlight) {
        this.inFlight = inFlight;
    }

    /**
     * Binds {@code pairs} socket pairs (ephemeral ports on both addresses), connects each pair and starts
     * {@code threads} threads per side.
     */
    public static UdpEchoFleet open(InetAddress serverAddress, InetAddress clientAddress, int pairs, int threads,
            int size, int inFlight) {
        UdpEchoFleet f = new UdpEchoFleet(inFlight);
        try {
            for (int t = 0; t < threads; t++) {
                f.servers.add(new Side(Selector.open(), size));
                f.clients.add(new Side(Selector.open(), size));
            }
            for (int i = 0; i < pairs; i++) {
                DatagramChannel s = DatagramChannel.open(StandardProtocolFamily.INET)
                        .bind(new InetSocketAddress(serverAddress, 0));
                f.channels.add(s);
                DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET)
                        .bind(new InetSocketAddress(clientAddress, 0));
                f.channels.add(c);
                s.connect(c.getLocalAddress()).configureBlocking(false);
                c.connect(s.getLocalAddress()).configureBlocking(false);
                Side server = f.servers.get(i % threads);
                Side client = f.clients.get(i % threads);
                s.register(server.selector, SelectionKey.OP_READ);
                c.register(client.selector, SelectionKey.OP_READ);
                client.sockets.add(c);
            }
            for (int t = 0; t < threads; t++) {
                Side server = f.servers.get(t);
                Side client = f.clients.get(t);
                f.threads.add(Thread.ofPlatform().daemon().name("udp-fleet-srv-" + t).start(() -> f.serve(server)));
                f.threads.add(Thread.ofPlatform().daemon().name("udp-fleet-cli-" + t).start(() -> f.drive(client)));
            }
            return f;
        } catch (IOException e) {
            f.close();
            throw new UncheckedIOException("cannot open the UDP echo fleet", e);
        }
    }

    /** Socket pairs in the fleet. */
    public int pairs() {
        return channels.size() / 2;
    }

    /**
     * Starts every client socket, counts the echoes arriving during {@code window} (after a tenth of it to settle),
     * stops sending and waits until every outstanding echo is back.
     *
     * @return echoes per second over the window, all sockets together
     * @throws IllegalStateException when echoes are still missing {@code limit} after the window (a datagram lost)
     */
    public double run(Duration window, Duration limit) {
        running = true;
        generation++;
        for (Side c : clients) {
            c.selector.wakeup();
        }
        LockSupport.parkNanos(window.toNanos() / 10);
        long n0 = echoes();
        long t0 = System.nanoTime();
        LockSupport.parkNanos(window.toNanos());
        long n1 = echoes();
        long t1 = System.nanoTime();
        running = false;
        long deadline = System.nanoTime() + limit.toNanos();
        while (outstanding() > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(outstanding() + " UDP echoes still outstanding " + limit.toSeconds()
                        + " s after the window (datagrams lost)");
            }
            LockSupport.parkNanos(1_000_000);
        }
        return (n1 - n0) / ((t1 - t0) / 1e9);
    }

    private long echoes() {
        long n = 0;
        for (Side c : clients) {
            n += c.echoes;
        }
        return n;
    }

    private long outstanding() {
        long n = 0;
        for (Side c : clients) {
            n += c.outstanding;
        }
        return n;
    }

    private void serve(Side side) {
        try {
            while (true) {
                side.selector.select();
                for (SelectionKey k : side.selector.selectedKeys()) {
                    DatagramChannel ch = (DatagramChannel) k.channel();
                    while (true) {
                        side.buffer.clear();
                        if (ch.read(side.buffer) <= 0) {
                            break;
                        }
                        side.buffer.flip();
                        ch.write(side.buffer);
                    }
                }
                side.selector.selectedKeys().clear();
            }
        } catch (ClosedSelectorException | IOException closed) {
            // closing
        }
    }

    private void drive(Side side) {
        int seen = 0;
        try {
            while (true) {
                side.selector.select();
                int g = generation;
                if (g != seen && running) {
                    seen = g;
                    for (DatagramChannel ch : side.sockets) {
                        for (int i = 0; i < inFlight; i++) {
                            send(side, ch);
                        }
                    }
                }
                for (SelectionKey k : side.selector.selectedKeys()) {
                    DatagramChannel ch = (DatagramChannel) k.channel();
                    while (true) {
                        side.buffer.clear();
                        if (ch.read(side.buffer) <= 0) {
                            break;
                        }
                        side.echoes = side.echoes + 1; // single writer: this thread
                        side.outstanding = side.outstanding - 1;
                        if (running) {
                            send(side, ch);
                        }
                    }
                }
                side.selector.selectedKeys().clear();
            }
        } catch (ClosedSelectorException | IOException closed) {
            // closing
        }
    }

    private static void send(Side side, DatagramChannel ch) throws IOException {
        side.buffer.clear().limit(side.size);
        ch.write(side.buffer);
        side.outstanding = side.outstanding + 1;
    }

    @Override
    public void close() {
        for (DatagramChannel ch : channels) {
            UdpPingPong.closeQuietly(ch);
        }
        for (Side s : servers) {
            s.close();
        }
        for (Side s : clients) {
            s.close();
        }
        for (Thread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One thread's selector, its sockets (client side) and counters. */
    private static final class Side {
        final Selector selector;
        final ByteBuffer buffer;
        final int size;
        final List<DatagramChannel> sockets = new ArrayList<>();
        /** Echoes received (written by the side's thread only). */
        volatile long echoes;
        /** Datagrams whose echo has not arrived (written by the side's thread only). */
        volatile int outstanding;

        Side(Selector selector, int size) {
            this.selector = selector;
            this.size = size;
            this.buffer = ByteBuffer.allocateDirect(Math.max(size, 2048));
        }

        void close() {
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
