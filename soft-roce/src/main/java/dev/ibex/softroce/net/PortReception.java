package dev.ibex.softroce.net;

import dev.ibex.softroce.net.FaultRules.Verdict;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A port's receive path: the unicast socket's receive thread, the lending of that socket to a thread that reads it
 * itself (an event loop running to completion: {@link #lend}, {@link #reclaim}, {@link #receiveAvailable}), the
 * reading of one datagram for any reader ({@link #receiveOne}: counted, tapped, faulted), the receive-side fault
 * injection, and the delivery to the port's {@link DatagramHandler}.
 *
 * <p>Threading: the unicast socket is read by the receive thread or, while lent, only by the borrower; the group
 * thread reads through {@link #receiveOne}; every delivery (from those threads or the fault timer) holds the
 * delivery lock, so the handler is never called concurrently; {@link #lend} and {@link #reclaim} may be called from
 * any thread.
 */
final class PortReception {
    /** The port's logger, so the receive path's lines keep the category they always had. */
    private static final Logger LOG = LoggerFactory.getLogger(SoftPort.class);

    /** {@link #receiveOne}: a datagram was read (and delivered, dropped or found oversize). */
    static final int RECEIVED = 0;
    /** {@link #receiveOne}: a non-blocking channel had nothing (or the read failed and was logged). */
    static final int EMPTY = 1;
    /** {@link #receiveOne}: every pool buffer is held by handlers; nothing was read. */
    static final int NO_BUFFER = 2;
    /**
     * {@link #receiveOne}: the empty datagram {@link #lend} sends itself, left unread by the receive thread that
     * ended before it: no packet, not counted as one (ReceptionLendingTest read 4 datagrams for 3).
     */
    static final int NUDGE = 3;

    /** {@link #nudge}'s datagram: empty, so that threads share it safely. */
    private static final ByteBuffer NUDGE_DATAGRAM = ByteBuffer.allocateDirect(0);

    /** How long {@link #receiveWaiting} sleeps at most when the port no longer reads directly. */
    private static final long ORPHANED_WAIT_NANOS = 10_000_000;

    private final SoftPort port;
    private final DatagramChannel channel;
    private final int ip;
    private final int udpPort;
    /** This port's own socket address: where {@link #lend} sends its nudge from and to. */
    private final InetSocketAddress self;
    private final BufferPool pool;
    private final DatagramHandler handler;
    private final FaultInjector faults;
    private final PortTap tap;
    private final FaultTimer timer;
    private final String name;
    private volatile Thread receiver;
    /** Set while another thread reads the socket ({@link #lend}); the receive thread then ends. */
    private volatile boolean lent;
    private final Object lendLock = new Object();
    private final ReentrantLock deliveryLock = new ReentrantLock();
    private final AtomicReference<PacketBuffer> held = new AtomicReference<>();
    /** The socket the borrower reads instead of the channel ({@link #receiveDirectly}), or null. */
    private volatile ReceiveSocket direct;
    /** The channel may still hold what arrived before the datagrams were steered to {@link #direct} (borrower). */
    private boolean channelMayHold;
    /** Why the borrower's last {@link #drain} stopped ({@link #RECEIVED}: it read its maximum). */
    private int stoppedOn;
    private final int receiveBufferBytes;
    /** The offload socket joined the channel's group (its place there is what {@link ReceiveSocket} follows). */
    private final boolean offloadBound;
    private final LongAdder received = new LongAdder(), delivered = new LongAdder(), oversize = new LongAdder(),
            handlerErrors = new LongAdder();

    PortReception(SoftPort port, DatagramChannel channel, BufferPool pool, DatagramHandler handler,
            FaultInjector faults, PortTap tap, FaultTimer timer, String name, int receiveBufferBytes, boolean offloadBound) {
        this.port = port;
        this.receiveBufferBytes = receiveBufferBytes;
        this.offloadBound = offloadBound;
        this.channel = channel;
        this.ip = port.ip();
        this.udpPort = port.udpPort();
        this.self = new InetSocketAddress(port.address(), udpPort);
        this.pool = pool;
        this.handler = handler;
        this.faults = faults;
        this.tap = tap;
        this.timer = timer;
        this.name = name;
    }

    long received() {
        return received.sum();
    }

    long delivered() {
        return delivered.sum();
    }

    long oversize() {
        return oversize.sum();
    }

    long handlerErrors() {
        return handlerErrors.sum();
    }

    /** Starts the unicast socket's receive thread. */
    void start() {
        receiver = startReceiver();
    }

    private Thread startReceiver() {
        Thread t = Thread.ofPlatform().name("ibex-softroce-rx-" + name).daemon(true).unstarted(this::receiveLoop);
        t.start();
        return t;
    }

    /** Waits (bounded) for the receive thread to end once the socket is closed; see {@link SoftPort#close()}. */
    void awaitReceiver() {
        port.joinThread(receiver);
    }

    /** Forgets a datagram held back for reordering (the port closed). */
    void discardHeld() {
        held.set(null);
    }

    /** {@link SoftPort#lendReception()}. */
    DatagramChannel lend() {
        synchronized (lendLock) {
            if (lent || !port.isOpen()) {
                throw new IllegalStateException(
                        "port " + name + (port.isOpen() ? ": reception is lent already" : " is closed"));
            }
            lent = true;
            try {
                // a receive blocked in the kernel wakes for a datagram only: an empty one to ourselves ends it
                channel.send(ByteBuffer.allocate(0), self);
                port.joinThread(receiver);
                channel.configureBlocking(false);
            } catch (IOException e) {
                lent = false;
                throw new UncheckedIOException("port " + name + ": cannot lend reception", e);
            }
            return channel;
        }
    }

    /** {@link SoftPort#reclaimReception()}. */
    void reclaim() {
        synchronized (lendLock) {
            if (!lent || !port.isOpen()) {
                return;
            }
            closeDirect(); // steers the datagrams back to the channel first
            try {
                channel.configureBlocking(true);
            } catch (IOException | java.nio.channels.IllegalBlockingModeException e) {
                LOG.warn("port {}: cannot take reception back ({}): nothing is received on it", name, e.toString());
                return;
            }
            lent = false;
            receiver = startReceiver();
        }
    }

    /** {@link SoftPort#receiveDirectly()}. */
    boolean receiveDirectly() {
        synchronized (lendLock) {
            if (!lent || !port.isOpen()) {
                throw new IllegalStateException("port " + name + (port.isOpen() ? ": reception is not lent" : " is closed"));
            }
            if (direct == null && offloadBound) {
                direct = ReceiveSocket.open(ip, udpPort, receiveBufferBytes);
                channelMayHold = true;
            }
            return direct != null;
        }
    }

    /** Closes the direct socket, if any; what arrives from now on goes to the channel. */
    void closeDirect() {
        synchronized (lendLock) {
            ReceiveSocket d = direct;
            if (d != null) {
                direct = null;
                d.close();
            }
        }
    }

    /** {@link SoftPort#nudge()}: an empty datagram to ourselves, from any thread. */
    void nudge() {
        try {
            channel.send(NUDGE_DATAGRAM, self); // empty: the send moves no position
        } catch (IOException e) {
            if (port.isOpen()) {
                LOG.debug("port {}: cannot wake the loop reading it: {}", name, e.toString());
            }
        }
    }

    /** {@link SoftPort#receiveWaiting}. */
    int receiveWaiting(SoftPort.Reader reader, long waitNanos) {
        ReceiveSocket d = direct;
        if (d == null || !lent) {
            // closed or taken back under a loop still polling: no socket to sleep in, so sleep a little here rather
            // than let the loop spin until its poller closes
            LockSupport.parkNanos(waitNanos < 0 ? ORPHANED_WAIT_NANOS : Math.min(waitNanos, ORPHANED_WAIT_NANOS));
            return 0;
        }
        try {
            return receiveDirect(reader, d, waitNanos) != RECEIVED ? 0 : d.waited() ? SoftPort.WAITED : 1;
        } catch (ClosedChannelException e) {
            return 0;
        }
    }

    /** {@link SoftPort#wakeLagNanos}. */
    long wakeLagNanos() {
        ReceiveSocket d = direct;
        return d == null ? -1 : d.wakeLagNanos();
    }

    /** {@link SoftPort#receiveAvailable}. */
    int receiveAvailable(SoftPort.Reader reader, int max) {
        if (!lent) {
            return 0; // taken back (the socket blocks again and its receive thread reads it): never wait here
        }
        ReceiveSocket d = direct;
        try {
            if (d == null) {
                return drain(reader, null, 0, max);
            }
            int n = 0;
            if (channelMayHold) { // what arrived before the steering changed comes first, in order
                n = drain(reader, null, 0, max);
                if (n == max || stoppedOn == NO_BUFFER) {
                    return n;
                }
                channelMayHold = false;
            }
            return drain(reader, d, n, max);
        } catch (ClosedChannelException e) {
            return 0; // closed meanwhile: nothing more to read
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    /**
     * Reads from the channel ({@code d} null) or the direct socket until {@code max} datagrams in all, none is waiting
     * or no buffer is free ({@link #stoppedOn} says which).
     *
     * @return {@code n} plus the datagrams read
     */
    private int drain(SoftPort.Reader reader, ReceiveSocket d, int n, int max)
            throws ClosedChannelException, InterruptedException {
        int got = RECEIVED;
        while (n < max) {
            got = d == null ? receiveOne(reader, channel, ip, 0) : receiveDirect(reader, d, 0);
            if (got == RECEIVED) {
                n++;
            } else if (got != NUDGE) {
                break;
            }
        }
        stoppedOn = got;
        return n;
    }

    /**
     * Reads one datagram from the direct socket, waiting up to {@code waitNanos} (0: not at, negative: for ever), and
     * hands it on as {@link #receiveOne} does. An empty datagram is a wake-up ({@link #nudge}), not a packet.
     */
    private int receiveDirect(SoftPort.Reader r, ReceiveSocket d, long waitNanos) throws ClosedChannelException {
        if (!port.isOpen()) {
            throw new ClosedChannelException();
        }
        if (r.buf == null) {
            r.buf = pool.poll();
            if (r.buf == null) {
                return NO_BUFFER;
            }
        }
        PacketBuffer buf = r.buf;
        int length = d.receive(buf.segment(), buf.capacity(), waitNanos);
        if (length == ReceiveSocket.CLOSED) {
            throw new ClosedChannelException();
        }
        if (length == ReceiveSocket.NOTHING) {
            return EMPTY;
        }
        if (length == 0) {
            return NUDGE;
        }
        return accept(r, buf, length, d.sourceIp(), d.sourcePort(), ip);
    }

    /**
     * The unicast socket's receive thread: what {@link #receiveOne} does, as one loop on the blocking channel — the
     * RC hot path; with a call to receiveOne per datagram instead, LossAndReorderTest's millisecond timers expired in
     * 3 runs of 6 under load (0 of 12 as one loop).
     */
    private void receiveLoop() {
        PacketBuffer buf = null;
        SocketAddress lastFrom = null; // the JDK hands back the same object while the sender does not change
        int fromIp = 0, fromPort = 0;
        DatagramChannel ch = channel;
        int dstIp = ip;
        try {
            while (port.isOpen() && ch.isOpen() && !lent) {
                if (buf == null) {
                    buf = pool.take(100);
                    if (buf == null) {
                        continue;
                    }
                }
                ByteBuffer bb = buf.byteBuffer();
                bb.clear();
                SocketAddress from;
                try {
                    from = ch.receive(bb);
                } catch (ClosedChannelException e) {
                    break;
                } catch (IOException e) {
                    if (port.isOpen() && ch.isOpen()) {
                        LOG.debug("port {}: receive failed: {}", name, e.toString());
                    }
                    continue;
                }
                int length = bb.position();
                if (length == 0 && from.equals(self)) {
                    if (lent) {
                        break; // lend's nudge: another thread reads from now on
                    }
                    continue; // a nudge left over from an earlier lending
                }
                received.increment();
                if (length == bb.capacity()) {
                    oversize.increment();
                    continue;
                }
                if (from != lastFrom) {
                    InetSocketAddress isa = (InetSocketAddress) from;
                    fromIp = Ipv4.toInt(isa.getAddress());
                    fromPort = isa.getPort();
                    lastFrom = from;
                }
                buf.set(length, fromIp, fromPort, dstIp, udpPort);
                PcapWriter t = tap.writer();
                if (t != null) {
                    tap.record(t, fromIp, fromPort, dstIp, udpPort, buf.segment(), length);
                }
                if (faults.isActive()) {
                    receiveWithFaults(buf);
                } else {
                    deliver(buf);
                }
                if (buf.isRetained()) {
                    buf = null;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (buf != null && !buf.isRetained()) {
                pool.give(buf);
            }
        }
    }

    /**
     * Reads one datagram from {@code ch} (blocking or not) into the reader's buffer and hands it on: counted, tapped,
     * faulted, delivered with destination {@code dstIp}.
     *
     * @return {@link #RECEIVED}, {@link #EMPTY}, {@link #NO_BUFFER} or {@link #NUDGE}
     * @throws ClosedChannelException when {@code ch} is closed
     */
    int receiveOne(SoftPort.Reader r, DatagramChannel ch, int dstIp)
            throws InterruptedException, ClosedChannelException {
        return receiveOne(r, ch, dstIp, 100);
    }

    /** As above, waiting at most {@code bufferWaitMillis} for a pool buffer (0 on an event loop: never wait). */
    private int receiveOne(SoftPort.Reader r, DatagramChannel ch, int dstIp, long bufferWaitMillis)
            throws InterruptedException, ClosedChannelException {
        if (!port.isOpen()) {
            throw new ClosedChannelException();
        }
        if (r.buf == null) {
            r.buf = pool.take(bufferWaitMillis);
            if (r.buf == null) {
                return NO_BUFFER;
            }
        }
        PacketBuffer buf = r.buf;
        ByteBuffer bb = buf.byteBuffer();
        bb.clear();
        SocketAddress from;
        try {
            from = ch.receive(bb);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            if (port.isOpen() && ch.isOpen()) {
                LOG.debug("port {}: receive failed: {}", name, e.toString());
            }
            return EMPTY;
        }
        if (from == null) {
            return EMPTY;
        }
        int length = bb.position();
        if (length == 0 && from.equals(self)) {
            return NUDGE; // lend's nudge, read by the borrower when the receive thread left before it
        }
        if (from != r.lastFrom) {
            InetSocketAddress isa = (InetSocketAddress) from;
            r.fromIp = Ipv4.toInt(isa.getAddress());
            r.fromPort = isa.getPort();
            r.lastFrom = from;
        }
        return accept(r, buf, length, r.fromIp, r.fromPort, dstIp);
    }

    /** Counts, taps and hands on (faulted or delivered) the {@code length}-byte datagram the reader's buffer holds. */
    private int accept(SoftPort.Reader r, PacketBuffer buf, int length, int fromIp, int fromPort, int dstIp) {
        received.increment();
        if (length == buf.capacity()) {
            oversize.increment();
            return RECEIVED;
        }
        buf.set(length, fromIp, fromPort, dstIp, udpPort);
        PcapWriter t = tap.writer();
        if (t != null) {
            tap.record(t, fromIp, fromPort, dstIp, udpPort, buf.segment(), length);
        }
        if (faults.isActive()) {
            receiveWithFaults(buf);
        } else {
            deliver(buf);
        }
        if (buf.isRetained()) {
            r.buf = null;
        }
        return RECEIVED;
    }

    private void receiveWithFaults(PacketBuffer buf) {
        if (faults.isBlackHoled(ip, buf.srcIp())) {
            faults.countBlackHoled();
            return;
        }
        FaultRules rules = faults.onReceive();
        Verdict verdict = rules.decide(buf.srcIp(), buf.srcPort(), buf.dstIp(), buf.dstPort(), buf.segment(),
                buf.length());
        switch (verdict) {
            case DROP -> faults.countDropped();
            case DELAY -> {
                faults.countDelayed();
                PacketBuffer c = buf.copy();
                timer.schedule(() -> deliver(c), rules.delayNanos());
            }
            case HOLD -> {
                PacketBuffer c = buf.copy();
                if (held.compareAndSet(null, c)) {
                    faults.countReordered();
                    timer.schedule(() -> {
                        if (held.compareAndSet(c, null)) {
                            deliver(c);
                        }
                    }, rules.reorderMaxHoldNanos());
                } else {
                    deliver(buf);
                    releaseHeld();
                }
            }
            case DUPLICATE -> {
                faults.countDuplicated();
                PacketBuffer c = buf.copy();
                deliver(buf);
                deliver(c);
                releaseHeld();
            }
            default -> {
                deliver(buf);
                releaseHeld();
            }
        }
    }

    private void releaseHeld() {
        PacketBuffer h = held.getAndSet(null);
        if (h != null) {
            deliver(h);
        }
    }

    private void deliver(PacketBuffer buf) {
        deliveryLock.lock();
        try {
            if (!port.isOpen()) {
                return;
            }
            delivered.increment();
            handler.onDatagram(buf);
        } catch (RuntimeException e) {
            handlerErrors.increment();
            LOG.warn("port {}: datagram handler failed on {}", name, buf, e);
        } finally {
            deliveryLock.unlock();
        }
    }
}
