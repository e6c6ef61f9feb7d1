package dev.ibex.bench.udp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The bandwidth baseline for RDMA WRITE over the soft provider: the same bytes in the same datagrams, with the
 * same flow control, but no RDMA. A {@code size}-byte message is cut at {@code mtu} like the RC requester does
 * (first packet BTH+RETH+payload+ICRC = 32 bytes of headers, the others BTH+payload+ICRC = 16), every datagram
 * carries a sequence number, the last one of a message and every 64th asks for an acknowledgement, the receiver
 * answers those with a 20-byte cumulative ACK (an RC ACK's size), and the sender keeps at most 128 datagrams
 * unacknowledged (RC's window) — going back to the oldest unacknowledged one when no ACK came for 100 ms (RC's
 * retransmission; on loopback it should not happen and {@link #retransmissions()} says whether it did).
 *
 * <p>Threads as in the soft provider: the caller sends (the poster), one thread receives ACKs on the sender's
 * socket (its receive thread) and wakes the caller when the window opens, one thread receives on the server's
 * socket and acknowledges. What the baseline does not do and the provider must: build RoCEv2 headers, compute the
 * ICRC, copy the payload from and into registered memory.
 */
public final class UdpBlast implements AutoCloseable {
    /** RC: unacknowledged packets allowed in flight. */
    static final int WINDOW = 128;
    /** RC: an AckReq at least every this many packets. */
    static final int PACKETS_PER_ACK = 64;
    static final int ACK_BYTES = 12 + 4 + 4;
    static final int FIRST_HEADERS = 12 + 16 + 4;
    static final int NEXT_HEADERS = 12 + 4;
    static final long RETRANSMIT_NANOS = 100_000_000L;

    private final DatagramChannel sender;
    private final DatagramChannel receiver;
    private final int size;
    private final int mtu;
    private final int packetsPerMessage;
    private final ByteBuffer packet;
    private final Thread ackThread;
    private final Thread receiveThread;
    private volatile long acked;
    private volatile Thread waiter;
    private long retransmissions;

    private UdpBlast(DatagramChannel sender, DatagramChannel receiver, int size, int mtu) {
        this.sender = sender;
        this.receiver = receiver;
        this.size = size;
        this.mtu = mtu;
        this.packetsPerMessage = (size + mtu - 1) / mtu;
        this.packet = ByteBuffer.allocateDirect(mtu + FIRST_HEADERS);
        this.ackThread = Thread.ofPlatform().daemon().name("udp-blast-acks").start(this::receiveAcks);
        this.receiveThread = Thread.ofPlatform().daemon().name("udp-blast-rx").start(this::receive);
    }

    /**
     * Binds both sockets (ephemeral ports, {@code SO_RCVBUF} as the soft provider sets it) and connects them.
     *
     * @param mtu the payload bytes per datagram (the soft device's path MTU: 4096 on loopback)
     */
    public static UdpBlast open(InetAddress receiverAddress, InetAddress senderAddress, int size, int mtu,
            int receiveBuffer) {
        DatagramChannel r = null;
        DatagramChannel s = null;
        try {
            r = DatagramChannel.open(StandardProtocolFamily.INET);
            r.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            r.bind(new InetSocketAddress(receiverAddress, 0));
            s = DatagramChannel.open(StandardProtocolFamily.INET);
            s.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
            s.setOption(StandardSocketOptions.SO_SNDBUF, 1 << 20);
            s.bind(new InetSocketAddress(senderAddress, 0));
            r.connect(s.getLocalAddress());
            s.connect(r.getLocalAddress());
            return new UdpBlast(s, r, size, mtu);
        } catch (IOException e) {
            UdpPingPong.closeQuietly(r);
            UdpPingPong.closeQuietly(s);
            throw new UncheckedIOException("cannot open the UDP blast sockets", e);
        }
    }

    /** Datagrams per message. */
    public int packetsPerMessage() {
        return packetsPerMessage;
    }

    /** How often the sender went back for lack of an ACK (over all runs). */
    public long retransmissions() {
        return retransmissions;
    }

    /**
     * Sends {@code messages} messages and returns the nanoseconds from the first datagram to the ACK of the last.
     */
    public long run(int messages) {
        long base = acked;
        long end = base + (long) messages * packetsPerMessage;
        long start = System.nanoTime();
        long seq = base;
        int sinceAckReq = 0;
        try {
            while (acked < end) {
                if (seq < end && seq - acked < WINDOW) {
                    int p = (int) ((seq - base) % packetsPerMessage);
                    boolean last = p == packetsPerMessage - 1;
                    boolean ackReq = last || ++sinceAckReq >= PACKETS_PER_ACK;
                    if (ackReq) {
                        sinceAckReq = 0;
                    }
                    packet.clear();
                    packet.putLong(0, seq);
                    packet.put(8, (byte) (ackReq ? 1 : 0));
                    packet.limit((last ? size - p * mtu : mtu) + (p == 0 ? FIRST_HEADERS : NEXT_HEADERS));
                    sender.write(packet);
                    seq++;
                } else if (!awaitAcks(seq < end ? seq - WINDOW + 1 : end)) {
                    retransmissions++;
                    seq = acked; // go back N, as RC does on its retransmission timer
                    sinceAckReq = 0;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("UDP blast failed", e);
        }
        return System.nanoTime() - start;
    }

    /** Waits until {@code acked >= target}; false when no progress came within the retransmission time. */
    private boolean awaitAcks(long target) {
        long deadline = System.nanoTime() + RETRANSMIT_NANOS;
        long seen = acked;
        while (acked < target) {
            waiter = Thread.currentThread();
            if (acked >= target) {
                break;
            }
            LockSupport.parkNanos(this, RETRANSMIT_NANOS);
            long now = acked;
            if (now != seen) {
                seen = now;
                deadline = System.nanoTime() + RETRANSMIT_NANOS;
            } else if (System.nanoTime() - deadline > 0) {
                waiter = null;
                return false;
            }
        }
        waiter = null;
        return true;
    }

    private void receiveAcks() {
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        try {
            while (true) {
                b.clear();
                sender.read(b);
                long a = b.getLong(0);
                if (a > acked) {
                    acked = a;
                    Thread w = waiter;
                    if (w != null) {
                        LockSupport.unpark(w);
                    }
                }
            }
        } catch (AsynchronousCloseException closed) {
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void receive() {
        ByteBuffer b = ByteBuffer.allocateDirect(65536);
        ByteBuffer ack = ByteBuffer.allocateDirect(ACK_BYTES);
        long expected = 0;
        try {
            while (true) {
                b.clear();
                receiver.read(b);
                long seq = b.getLong(0);
                boolean ackReq = b.get(8) != 0;
                if (seq == expected) {
                    expected++;
                } else if (seq > expected) {
                    continue; // a gap: drop, the sender goes back
                }
                if (ackReq) {
                    ack.clear();
                    ack.putLong(0, expected);
                    receiver.write(ack);
                }
            }
        } catch (AsynchronousCloseException closed) {
            // done
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        UdpPingPong.closeQuietly(sender);
        UdpPingPong.closeQuietly(receiver);
        try {
            ackThread.join(2000);
            receiveThread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
