package dev.ibex.softroce.net;

import dev.ibex.softroce.net.FaultRules.Verdict;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A port's send path: the system call under the allocation-free {@link TransmitLock}, the tap, and the send-side
 * fault injection (drop, delay, hold for reordering, duplicate) with its counters.
 *
 * <p>Threading: {@link #send} may be called from any thread, concurrently; datagrams held back by faults leave from
 * the port's {@link FaultTimer} thread or the next sender's.
 */
final class PortTransmission {
    /** The port's logger, so the send path's lines keep the category they always had. */
    private static final Logger LOG = LoggerFactory.getLogger(SoftPort.class);

    private final SoftPort port;
    private final DatagramChannel channel;
    private final int ip;
    private final int udpPort;
    private final FaultInjector faults;
    private final PortTap tap;
    private final FaultTimer timer;
    private final String name;
    private final TransmitLock transmitLock = new TransmitLock();
    private final AtomicReference<Pending> held = new AtomicReference<>();
    private final LongAdder sent = new LongAdder(), sendFailures = new LongAdder(), segmentedCalls = new LongAdder();
    /** The segmentation-offload socket, or null: then every datagram is its own send. Cleared when refused. */
    private volatile GsoSocket gso;
    /** The buffer of the last segmented send and a view of all of it (guarded by the transmit lock). */
    private ByteBuffer viewed;
    private MemorySegment view;

    private record Pending(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
    }

    PortTransmission(SoftPort port, DatagramChannel channel, GsoSocket gso, FaultInjector faults, PortTap tap,
            FaultTimer timer, String name) {
        this.port = port;
        this.channel = channel;
        this.gso = gso;
        this.ip = port.ip();
        this.udpPort = port.udpPort();
        this.faults = faults;
        this.tap = tap;
        this.timer = timer;
        this.name = name;
    }

    long sent() {
        return sent.sum();
    }

    long sendFailures() {
        return sendFailures.sum();
    }

    /** System calls that sent several datagrams at once (segmentation offload). */
    long segmentedCalls() {
        return segmentedCalls.sum();
    }

    /** Whether runs of datagrams leave in one call (see {@link GsoSocket}). */
    boolean segmenting() {
        return gso != null;
    }

    /**
     * {@link SoftPort#sendSegments}: one segmented call when the port has a {@link GsoSocket}, no fault is active,
     * no tap records and the destination is unicast; else each datagram through {@link #send}.
     */
    SendResult sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
        int start = datagrams.position(), end = datagrams.limit(), length = end - start;
        if (segmentSize <= 0) {
            throw new IllegalArgumentException("segment size must be positive, not " + segmentSize);
        }
        int count = (length + segmentSize - 1) / segmentSize;
        GsoSocket g = gso;
        if (g != null && count > 1 && datagrams.isDirect() && count <= GsoSocket.MAX_SEGMENTS && length <= GsoSocket.MAX_BYTES
                && !faults.isActive() && tap.writer() == null && !Ipv4.isMulticast(dstIp)) {
            GsoSocket.Outcome outcome;
            boolean interrupted = Thread.interrupted();
            transmitLock.lock();
            try {
                if (!port.isOpen()) {
                    throw new IllegalStateException("soft port " + name + " is closed");
                }
                if (datagrams != viewed) { // a sender's batch buffer is reused: view it once, not per call
                    viewed = datagrams;
                    view = MemorySegment.ofBuffer(datagrams.duplicate().clear());
                }
                outcome = g.send(view, start, length, segmentSize, dstIp, destination.getPort());
            } finally {
                transmitLock.unlock();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            switch (outcome) {
                case SENT -> {
                    sent.add(count);
                    segmentedCalls.increment();
                    return SendResult.SENT;
                }
                case DROPPED -> {
                    sendFailures.add(count);
                    return SendResult.FAILED;
                }
                default -> {
                    LOG.info("port {}: the kernel refused UDP segmentation offload; sending datagram by datagram",
                            name);
                    gso = null;
                }
            }
        }
        SendResult result = SendResult.SENT;
        try {
            for (int at = start; at < end; at += segmentSize) {
                datagrams.limit(Math.min(end, at + segmentSize)).position(at);
                SendResult r = send(datagrams, dstIp, destination);
                if (r != SendResult.SENT) {
                    result = r;
                }
            }
        } finally {
            datagrams.limit(end).position(start);
        }
        return result;
    }

    /** Closes the segmentation-offload socket (the port closed; no send runs past its open check). */
    void closeSegmenting() {
        GsoSocket g = gso;
        gso = null;
        if (g != null) {
            transmitLock.lock();
            try {
                g.close();
            } finally {
                transmitLock.unlock();
            }
        }
    }

    /** {@link SoftPort#send(ByteBuffer, int, InetSocketAddress)} once the port was found open. */
    SendResult send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
        int length = datagram.remaining();
        PcapWriter t = tap.writer();
        boolean faulty = faults.isActive();
        MemorySegment view = t != null || faulty ? MemorySegment.ofBuffer(datagram) : null;
        if (faulty) {
            return sendWithFaults(datagram, view, length, dstIp, destination);
        }
        return transmit(datagram, view, length, dstIp, destination, t);
    }

    /** {@link SoftPort#send(PacketBuffer, int, UdpAddress)} once the port was found open. */
    SendResult send(PacketBuffer buffer, int length, UdpAddress to) {
        ByteBuffer bb = buffer.byteBuffer();
        bb.clear().limit(length);
        if (faults.isActive()) {
            return sendWithFaults(bb, buffer.segment(), length, to.ip(), to.socketAddress());
        }
        return transmit(bb, buffer.segment(), length, to.ip(), to.socketAddress(), tap.writer());
    }

    /** Forgets a datagram held back for reordering (the port closed). */
    void discardHeld() {
        held.set(null);
    }

    private SendResult transmit(ByteBuffer datagram, MemorySegment view, int length, int dstIp,
            InetSocketAddress destination, PcapWriter t) {
        // An interrupted caller would close the channel for every user of the port (NIO's interruptible
        // channels), so the interrupt status is set aside for the send and restored afterwards.
        boolean interrupted = Thread.interrupted();
        transmitLock.lock();
        try {
            channel.send(datagram, destination);
        } catch (ClosedChannelException e) {
            throw new IllegalStateException("soft port " + name + " is closed", e);
        } catch (IOException e) {
            sendFailures.increment();
            LOG.debug("port {}: sending {} bytes to {} failed: {}", name, length, destination, e.toString());
            return SendResult.FAILED;
        } finally {
            transmitLock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        sent.increment();
        if (t != null) {
            tap.record(t, ip, udpPort, dstIp, destination.getPort(), view, length);
        }
        return SendResult.SENT;
    }

    private SendResult sendWithFaults(ByteBuffer datagram, MemorySegment view, int length, int dstIp,
            InetSocketAddress destination) {
        if (faults.isBlackHoled(ip, dstIp)) {
            faults.countBlackHoled();
            return SendResult.DROPPED;
        }
        Verdict verdict = faults.onSend().decide(ip, udpPort, dstIp, destination.getPort(), view, length);
        switch (verdict) {
            case DROP -> {
                faults.countDropped();
                return SendResult.DROPPED;
            }
            case DELAY -> {
                faults.countDelayed();
                Pending p = new Pending(copy(datagram), dstIp, destination);
                timer.schedule(() -> transmitLater(p), faults.onSend().delayNanos());
                return SendResult.DEFERRED;
            }
            case HOLD -> {
                Pending p = new Pending(copy(datagram), dstIp, destination);
                if (held.compareAndSet(null, p)) {
                    faults.countReordered();
                    timer.schedule(() -> {
                        if (held.compareAndSet(p, null)) {
                            transmitLater(p);
                        }
                    }, faults.onSend().reorderMaxHoldNanos());
                    return SendResult.DEFERRED;
                }
                SendResult r = transmit(datagram, view, length, dstIp, destination, tap.writer());
                releaseHeld();
                return r;
            }
            case DUPLICATE -> {
                faults.countDuplicated();
                ByteBuffer again = datagram.duplicate();
                SendResult r = transmit(datagram, view, length, dstIp, destination, tap.writer());
                transmit(again, view, length, dstIp, destination, tap.writer());
                releaseHeld();
                return r;
            }
            default -> {
                SendResult r = transmit(datagram, view, length, dstIp, destination, tap.writer());
                releaseHeld();
                return r;
            }
        }
    }

    private void releaseHeld() {
        Pending p = held.getAndSet(null);
        if (p != null) {
            transmitLater(p);
        }
    }

    private void transmitLater(Pending p) {
        if (!port.isOpen()) {
            return;
        }
        try {
            transmit(p.datagram(), MemorySegment.ofBuffer(p.datagram()), p.datagram().remaining(), p.dstIp(),
                    p.destination(), tap.writer());
        } catch (IllegalStateException closed) {
            // closed while the datagram was held: it is lost, as on a dead link
        }
    }

    private static ByteBuffer copy(ByteBuffer datagram) {
        ByteBuffer c = ByteBuffer.allocate(datagram.remaining());
        c.put(datagram.duplicate()).flip();
        return c;
    }
}
