package dev.ibex.bench.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The floor of a datagram connection manager: a REQ/REP/RTU exchange of {@value #MAD}-byte datagrams (a CM MAD's
 * size) between two UDP sockets on the soft devices' addresses, and nothing else — no QP, no state machine beyond
 * a set of half-open and a set of established connection ids on the server, no retransmission (a loss fails the
 * run: loopback with 64 in flight loses nothing). The client is "established" when the REP arrives and it has sent
 * the RTU, as the RDMA CM's active side is.
 *
 * <p><b>Threading.</b> One driving thread runs the client; a thread of its own answers on the server socket.
 */
public final class UdpHandshake implements SetupSide {
    /** A CM MAD's size. */
    static final int MAD = 256;
    static final byte REQ = 1;
    static final byte REP = 2;
    static final byte RTU = 3;
    /** The sockets' receive buffers (the kernel caps it at {@code net.core.rmem_max}). */
    private static final int SOCKET_BUFFER = 4 << 20;
    /** Longest the client waits for one REP before the run fails (a lost datagram). */
    private static final int RECEIVE_TIMEOUT_MS = 5_000;

    private final DatagramSocket client;
    private final DatagramSocket server;
    private final Thread responder;
    private final byte[] out = new byte[MAD];
    private final DatagramPacket outPacket = new DatagramPacket(out, MAD);
    private final byte[] in = new byte[MAD];
    private final DatagramPacket inPacket = new DatagramPacket(in, MAD);
    private long nextId;

    private UdpHandshake(DatagramSocket client, DatagramSocket server) {
        this.client = client;
        this.server = server;
        this.responder = Thread.ofPlatform().daemon().name("udp-handshake").start(this::respond);
    }

    /** Binds the server socket on {@code serverAddress} and the client's on {@code clientAddress}, connected. */
    public static UdpHandshake open(InetAddress serverAddress, InetAddress clientAddress) {
        DatagramSocket s = null;
        DatagramSocket c = null;
        try {
            s = new DatagramSocket(new InetSocketAddress(serverAddress, 0));
            c = new DatagramSocket(new InetSocketAddress(clientAddress, 0));
            // room for every datagram a run can have in flight (a REQ and an RTU per connection in flight) even
            // while the other side's thread waits for a CPU: a datagram dropped here would fail the run
            s.setReceiveBufferSize(SOCKET_BUFFER);
            c.setReceiveBufferSize(SOCKET_BUFFER);
            c.connect(s.getLocalSocketAddress());
            c.setSoTimeout(RECEIVE_TIMEOUT_MS);
            return new UdpHandshake(c, s);
        } catch (IOException e) {
            if (s != null) {
                s.close();
            }
            if (c != null) {
                c.close();
            }
            throw new UncheckedIOException("cannot open the UDP handshake sockets", e);
        }
    }

    /** The server: REQ → remember as half-open, answer REP; RTU → established. */
    private void respond() {
        byte[] buf = new byte[MAD];
        DatagramPacket p = new DatagramPacket(buf, MAD);
        Set<Long> halfOpen = new HashSet<>();
        Set<Long> established = new HashSet<>();
        try {
            while (true) {
                p.setLength(MAD);
                server.receive(p);
                long id = ByteBuffer.wrap(buf).getLong(1);
                if (buf[0] == REQ) {
                    halfOpen.add(id);
                    buf[0] = REP;
                    server.send(p); // back to the sender's address, same payload
                } else if (buf[0] == RTU && halfOpen.remove(id)) {
                    established.add(id);
                    if (established.size() > 1 << 16) {
                        established.clear(); // a long-lived server forgets closed ones; no teardown here
                    }
                }
            }
        } catch (SocketException closed) {
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Histogram sequential(int n) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        try {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                send(REQ, nextId++);
                receiveRepAndConfirm();
                h.recordValue(System.nanoTime() - t0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the UDP handshake failed", e);
        }
        return h;
    }

    @Override
    public long concurrent(int n, int inFlight) {
        try {
            long t0 = System.nanoTime();
            int started = 0;
            for (; started < Math.min(n, inFlight); started++) {
                send(REQ, nextId++);
            }
            for (int established = 0; established < n; established++) {
                receiveRepAndConfirm();
                if (started < n) {
                    send(REQ, nextId++);
                    started++;
                }
            }
            return System.nanoTime() - t0;
        } catch (IOException e) {
            throw new UncheckedIOException("the UDP handshake failed", e);
        }
    }

    private void send(byte type, long id) throws IOException {
        out[0] = type;
        ByteBuffer.wrap(out).putLong(1, id);
        client.send(outPacket);
    }

    /** Waits for a REP and answers it with the RTU. */
    private void receiveRepAndConfirm() throws IOException {
        do {
            inPacket.setLength(MAD);
            try {
                client.receive(inPacket);
            } catch (SocketTimeoutException e) {
                throw new IllegalStateException("no REP within " + RECEIVE_TIMEOUT_MS + " ms (a lost datagram)", e);
            }
        } while (in[0] != REP);
        send(RTU, ByteBuffer.wrap(in).getLong(1));
    }

    @Override
    public void close() {
        client.close();
        server.close();
        try {
            responder.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
