package dev.ibex.bench.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The ping-pong baseline: two blocking {@link DatagramChannel}s connected to each other on the same addresses the
 * soft devices use, an echo thread on the server socket, the caller timing each round trip of one
 * {@code size}-byte datagram. The best plain Java can do with one socket per side: one {@code write} and one
 * blocking {@code read} per hop, a direct buffer reused, no allocation.
 */
public final class UdpPingPong implements AutoCloseable {
    private final DatagramChannel client;
    private final DatagramChannel server;
    private final Thread echo;
    private final ByteBuffer buffer;

    private UdpPingPong(DatagramChannel client, DatagramChannel server, int size) {
        this.client = client;
        this.server = server;
        this.buffer = ByteBuffer.allocateDirect(size);
        this.echo = Thread.ofPlatform().daemon().name("udp-echo").start(this::echo);
    }

    /** Binds both sockets (ephemeral ports) and connects them to each other. */
    public static UdpPingPong open(InetAddress serverAddress, InetAddress clientAddress, int size) {
        DatagramChannel s = null;
        DatagramChannel c = null;
        try {
            s = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(serverAddress, 0));
            c = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(clientAddress, 0));
            s.connect(c.getLocalAddress());
            c.connect(s.getLocalAddress());
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
            while (true) {
                b.clear();
                server.read(b);
                b.flip();
                server.write(b);
            }
        } catch (AsynchronousCloseException closed) {
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code roundTrips} round trips on the calling thread and returns their times (ns). */
    public Histogram run(int roundTrips) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        try {
            long sentAt = System.nanoTime();
            for (int i = 0; i < roundTrips; i++) {
                buffer.clear();
                buffer.putInt(0, i);
                client.write(buffer);
                buffer.clear();
                client.read(buffer);
                long now = System.nanoTime();
                h.recordValue(Math.min(now - sentAt, h.getHighestTrackableValue()));
                sentAt = now;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("UDP ping-pong failed", e);
        }
        return h;
    }

    @Override
    public void close() {
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
