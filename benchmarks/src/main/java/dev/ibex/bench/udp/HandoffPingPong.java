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
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * A second ping-pong baseline, shaped like the soft provider's RC path but doing nothing else: on each side a
 * receive thread blocks on the socket and hands each message to an application thread (park/unpark, as a soft
 * device wakes an event loop), the receive thread answers every message with a 20-byte ACK datagram (RC acknowledges
 * every message that asks), and an arriving ACK wakes the application thread too (the send completion). Against
 * it the ratio says what the provider's protocol and threading cost by themselves (the floor of this design), and
 * what is left for the implementation.
 */
public final class HandoffPingPong implements AutoCloseable {
    static final int ACK = 20;

    private final Side client;
    private final Side server;
    private final Thread serverApp;
    private final int size;

    private HandoffPingPong(DatagramChannel c, DatagramChannel s, int size) {
        this.size = size;
        this.client = new Side(c, "client");
        this.server = new Side(s, "server");
        this.serverApp = Thread.ofPlatform().daemon().name("handoff-server-app").start(this::echo);
    }

    public static HandoffPingPong open(InetAddress serverAddress, InetAddress clientAddress, int size) {
        DatagramChannel s = null;
        DatagramChannel c = null;
        try {
            s = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(serverAddress, 0));
            c = DatagramChannel.open(StandardProtocolFamily.INET).bind(new InetSocketAddress(clientAddress, 0));
            s.connect(c.getLocalAddress());
            c.connect(s.getLocalAddress());
            return new HandoffPingPong(c, s, size);
        } catch (IOException e) {
            UdpPingPong.closeQuietly(s);
            UdpPingPong.closeQuietly(c);
            throw new UncheckedIOException("cannot open the hand-off ping-pong sockets", e);
        }
    }

    private void echo() {
        server.app = Thread.currentThread();
        try {
            while (server.awaitMessage()) {
                server.send(size);
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Runs {@code roundTrips} round trips from the calling thread (the client's application thread). */
    public Histogram run(int roundTrips) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        client.app = Thread.currentThread();
        try {
            long sentAt = System.nanoTime();
            for (int i = 0; i < roundTrips; i++) {
                client.send(size);
                if (!client.awaitMessage()) {
                    throw new IllegalStateException("closed");
                }
                long now = System.nanoTime();
                h.recordValue(Math.min(now - sentAt, h.getHighestTrackableValue()));
                sentAt = now;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("hand-off ping-pong failed", e);
        }
        return h;
    }

    @Override
    public void close() {
        client.close();
        server.close();
        LockSupport.unpark(serverApp);
        try {
            serverApp.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One side: its socket, its receive thread, and the counters it hands to its application thread. */
    private static final class Side {
        final DatagramChannel channel;
        final Thread receiver;
        final ByteBuffer out = ByteBuffer.allocateDirect(65536);
        volatile Thread app;
        volatile long messages;
        volatile boolean closed;
        long taken;

        Side(DatagramChannel channel, String name) {
            this.channel = channel;
            this.receiver = Thread.ofPlatform().daemon().name("handoff-" + name + "-rx").start(this::receive);
        }

        private void receive() {
            ByteBuffer in = ByteBuffer.allocateDirect(65536);
            ByteBuffer ack = ByteBuffer.allocateDirect(ACK);
            try {
                while (true) {
                    in.clear();
                    channel.read(in);
                    if (in.position() != ACK) {
                        ack.clear();
                        channel.write(ack); // acknowledge, from the receive thread as the responder does
                        messages++; // single writer
                    }
                    Thread a = app; // a message or a send completion: wake the application
                    if (a != null) {
                        LockSupport.unpark(a);
                    }
                }
            } catch (AsynchronousCloseException e) {
                closed = true;
                Thread a = app;
                if (a != null) {
                    LockSupport.unpark(a);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Parks until a message arrived (wake-ups for ACKs are spurious here, as completions are to a loop). */
        boolean awaitMessage() {
            while (messages == taken) {
                if (closed) {
                    return false;
                }
                LockSupport.park(this);
            }
            taken++;
            return true;
        }

        void send(int size) throws IOException {
            out.clear().limit(size);
            channel.write(out);
        }

        void close() {
            UdpPingPong.closeQuietly(channel);
            try {
                receiver.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
