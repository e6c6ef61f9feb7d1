package dev.ibex.bench.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * The ping-pong baseline: two {@link DatagramChannel}s connected to each other on the same addresses the soft devices
 * use, an echo thread on the server socket, the caller timing each round trip of one {@code size}-byte datagram. The
 * best plain Java can do with one socket per side: one {@code write} and one {@code read} per hop, a direct buffer
 * reused, no allocation. Blocking (each side sleeps in {@code read}) or spinning (non-blocking sockets read in a busy
 * loop, each side keeping a core), to compare with Ibex's blocking and spinning idle policies.
 */
public final class UdpPingPong implements AutoCloseable {
    private final DatagramChannel client;
    private final DatagramChannel server;
    private final Thread echo;
    private final ByteBuffer buffer;
    private volatile boolean closed;
    /** Whether a run is on: a spinning echo spins only then, so it takes no core from the other workloads. */
    private volatile boolean running;

    private UdpPingPong(DatagramChannel client, DatagramChannel server, int size) {
        this.client = client;
        this.server = server;
        this.buffer = ByteBuffer.allocateDirect(size);
        this.echo = Thread.ofPlatform().daemon().name("udp-echo").start(this::echo);
    }

    /** Binds both sockets (ephemeral ports) and connects them to each other; both sides block in {@code read}. */
    public static UdpPingPong open(InetAddress serverAddress, InetAddress clientAddress, int size) {
        return open(serverAddress, clientAddress, size, false);
    }

    /**
     * Binds both sockets (ephemeral ports) and connects them to each other.
     *
     * @param spinning whether both sides busy-poll non-blocking sockets instead of blocking in {@code read}
     */
    public static UdpPingPong open(InetAddress serverAddress, InetAddress clientAddress, int size, boolean spinning) {
        DatagramChannel s = null;
        DatagramChannel c = null;
        try {
            s = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(serverAddress, 0));
            c = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(clientAddress, 0));
            s.connect(c.getLocalAddress());
            c.connect(s.getLocalAddress());
            if (spinning) {
                s.configureBlocking(false);
                c.configureBlocking(false);
            }
            return new UdpPingPong(c, s, size);
        } catch (IOException e) {
            closeQuietly(s);
            closeQuietly(c);
            throw new UncheckedIOException("cannot open the UDP ping-pong sockets", e);
        }
    }

    private void echo() {
        ByteBuffer b = ByteBuffer.allocateDirect(65536);
        try {
            while (!closed) {
                b.clear();
                if (server.read(b) <= 0) { // spinning: nothing yet
                    if (!running) {
                        LockSupport.parkNanos(1_000_000); // between runs: idle, not spinning
                    }
                    continue;
                }
                b.flip();
                server.write(b);
            }
        } catch (ClosedChannelException closed) { // an asynchronous close ends a blocked read
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code roundTrips} round trips on the calling thread and returns their times (ns). */
    public Histogram run(int roundTrips) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        running = true;
        try {
            long sentAt = System.nanoTime();
            for (int i = 0; i < roundTrips; i++) {
                buffer.clear();
                buffer.putInt(0, i);
                client.write(buffer);
                buffer.clear();
                while (client.read(buffer) <= 0) {
                    Thread.onSpinWait(); // spinning: until the echo is there (a blocking read returns it)
                }
                long now = System.nanoTime();
                h.recordValue(Math.min(now - sentAt, h.getHighestTrackableValue()));
                sentAt = now;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("UDP ping-pong failed", e);
        } finally {
            running = false;
        }
        return h;
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        closeQuietly(client);
        try {
            echo.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void closeQuietly(DatagramChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
