package dev.ibex.softroce.net;

import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.wire.Ipv4;
import dev.ibex.softroce.wire.Mtu;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One soft RDMA device port: a UDP socket bound to (local IPv4 address, port) — 4791 by default, but a host
 * running kernel rxe owns 4791, so tests use other ports and several 127.0.0.x addresses to put several
 * "hosts" on one loopback. It receives on its own threads (one for its address, one for all its multicast groups)
 * into pooled buffers and hands each datagram to a {@link DatagramHandler}; it sends from any thread; it joins IPv4
 * multicast groups on its interface;
 * it applies the faults of its {@link FaultInjector}; and it can copy everything it sends and receives to
 * a {@link PcapWriter}. The port is the façade: {@code PortSockets} binds its sockets, {@code PortReception}
 * receives (and lends its socket to an event loop), {@code PortTransmission} sends, {@code GroupReceiver} serves the
 * multicast groups, {@code FaultTimer} releases delayed datagrams and {@code PortTap} copies to the pcap writer. See
 * the package documentation for the threading model.
 *
 * <pre>{@code
 * try (SoftPort port = SoftPort.builder(InetAddress.getByName("127.0.0.2")).udpPort(47910)
 *         .handler(datagram -> ...).open()) {
 *     port.send(buffer, length, UdpAddress.of(peerIp, 47910));
 * }
 * }</pre>
 */
public final class SoftPort implements AutoCloseable {
    /** The RoCEv2 UDP port. */
    public static final int ROCE_PORT = 4791;

    private static final Logger LOG = LoggerFactory.getLogger(SoftPort.class);
    private static final long JOIN_MILLIS = 5_000;

    private final Inet4Address address;
    private final int ip;
    private final int udpPort;
    private final NetworkInterface networkInterface;
    private final int netdevMtu;
    private final Mtu pathMtu;
    private final DatagramChannel channel;
    private final int receiveBufferBytes;
    private final int requestedReceiveBuffer;
    private final BufferPool pool;
    private final FaultInjector faults;
    private final String name;
    private final PortTap tap;
    private final FaultTimer timer;
    private final PortTransmission transmission;
    private final PortReception reception;
    private final GroupReceiver groups;
    private final Object closeLock = new Object();
    private volatile boolean open = true;

    SoftPort(PortBuilder b, DatagramChannel channel, GsoSocket gso, NetworkInterface nif) throws IOException {
        this.address = b.address;
        this.ip = Ipv4.toInt(b.address);
        this.channel = channel;
        this.udpPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
        this.networkInterface = nif;
        this.netdevMtu = nif.getMTU();
        this.pathMtu = b.pathMtu != null ? b.pathMtu : Mtu.fromNetdevMtu(netdevMtu);
        this.requestedReceiveBuffer = b.receiveBufferBytes;
        this.receiveBufferBytes = channel.getOption(StandardSocketOptions.SO_RCVBUF);
        this.pool = new BufferPool(b.bufferCount, b.bufferSize);
        this.faults = b.faults != null ? b.faults : new FaultInjector(0);
        this.name = Ipv4.toString(ip) + ":" + udpPort;
        this.tap = new PortTap(b.tap, name);
        this.timer = new FaultTimer(this, name);
        this.transmission = new PortTransmission(this, channel, gso, faults, tap, timer, name);
        this.reception = new PortReception(this, channel, pool, b.handler, faults, tap, timer, name,
                b.receiveBufferBytes, gso != null);
        this.groups = new GroupReceiver(this, name);
        reception.start();
        if (receiveBufferBytes < b.receiveBufferBytes) {
            LOG.debug("port {}: asked for a {}-byte receive buffer, the kernel granted {} (net.core.rmem_max)", name,
                    b.receiveBufferBytes, receiveBufferBytes);
        }
    }

    /**
     * Starts configuring a port on {@code address}, a local IPv4 address.
     *
     * @param address the local IPv4 address to bind
     * @return a builder; {@link PortBuilder#open()} binds the socket
     * @throws IllegalArgumentException when {@code address} is not IPv4
     */
    public static PortBuilder builder(InetAddress address) {
        if (!(address instanceof Inet4Address v4)) {
            throw new IllegalArgumentException("a soft port needs a local IPv4 address, not " + address);
        }
        return new PortBuilder(v4);
    }

    // ---- identity -------------------------------------------------------------------------------------

    /**
     * The local address.
     *
     * @return the bound IPv4 address
     */
    public Inet4Address address() {
        return address;
    }

    /**
     * The local address as an int.
     *
     * @return the address's four bytes as a big-endian int (the form {@link UdpAddress#ip()} uses)
     */
    public int ip() {
        return ip;
    }

    /**
     * The bound UDP port (the actual one if 0 was asked for).
     *
     * @return the bound UDP port
     */
    public int udpPort() {
        return udpPort;
    }

    /**
     * This port's own address, e.g. for ICRC computation and pcap records.
     *
     * @return the bound address and UDP port
     */
    public UdpAddress localAddress() {
        return UdpAddress.of(ip, udpPort);
    }

    /**
     * The interface the address lives on ({@code lo} for 127/8).
     *
     * @return the network interface of {@link #address()}
     */
    public NetworkInterface networkInterface() {
        return networkInterface;
    }

    /**
     * The interface MTU.
     *
     * @return the interface MTU in bytes (the IP packet size)
     */
    public int netdevMtu() {
        return netdevMtu;
    }

    /**
     * The RoCE path MTU: the builder's override, else {@link Mtu#fromNetdevMtu} of the interface MTU.
     *
     * @return the RoCE path MTU
     */
    public Mtu pathMtu() {
        return pathMtu;
    }

    /**
     * The fault injector (shared if the builder was given one).
     *
     * @return the port's fault injector
     */
    public FaultInjector faults() {
        return faults;
    }

    /**
     * Counters since open.
     *
     * @return the live counters (read as they change)
     */
    public PortStats stats() {
        return new PortStats(transmission.sent(), reception.received(), reception.delivered(),
                transmission.sendFailures(), reception.oversize(), reception.handlerErrors(), receiveBufferBytes,
                transmission.segmentedCalls());
    }

    /**
     * Whether {@link #close()} has not been called.
     *
     * @return {@code true} until {@link #close()}
     */
    public boolean isOpen() {
        return open;
    }

    /**
     * Copies every datagram this port sends (as transmitted, after send faults) and receives (as read from
     * the socket, before receive faults) to {@code writer}; {@code null} stops. The writer is not closed by
     * the port. A writer that fails is logged and detached.
     *
     * @param writer the pcap writer to copy to, or {@code null} to stop
     */
    public void tap(PcapWriter writer) {
        tap.set(writer);
    }

    // ---- sending ----------------------------------------------------------------------------------------

    /**
     * Sends the bytes between {@code datagram}'s position and limit to {@code to} (a unicast address or a
     * multicast group); the position advances past them unless the datagram is dropped or deferred. Never
     * throws for a peer that is gone; see {@link SendResult}.
     *
     * @throws IllegalStateException if the port is closed
     * @param datagram the datagram's bytes, from position to limit
     * @param to       the destination address and UDP port
     * @return what became of the datagram
     */
    public SendResult send(ByteBuffer datagram, UdpAddress to) {
        return send(datagram, to.ip(), to.socketAddress());
    }

    /**
     * As {@link #send(ByteBuffer, UdpAddress)} for callers that keep the destination as an int address and a
     * cached socket address ({@code destination} must be {@code dstIp} at some port).
     *
     * @param datagram    the datagram's bytes, from position to limit
     * @param dstIp       the destination IPv4 address as a big-endian int
     * @param destination the same address with the destination UDP port
     * @return what became of the datagram
     * @throws IllegalStateException if the port is closed
     */
    public SendResult send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
        requireOpen();
        return transmission.send(datagram, dstIp, destination);
    }

    /**
     * Sends the first {@code length} bytes of {@code buffer} to {@code to}; see {@link #send(ByteBuffer, UdpAddress)}.
     *
     * @param buffer a packet buffer holding the datagram from its start
     * @param length how many bytes of {@code buffer} to send
     * @param to     the destination address and UDP port
     * @return what became of the datagram
     * @throws IllegalStateException if the port is closed
     */
    public SendResult send(PacketBuffer buffer, int length, UdpAddress to) {
        requireOpen();
        return transmission.send(buffer, length, to);
    }

    /**
     * Sends the datagrams laid end to end between {@code datagrams}' position and limit, each {@code segmentSize}
     * bytes but the last (which may be shorter), to {@code destination}: in one system call where the port can
     * (UDP segmentation offload, {@link #segmenting()}; a direct buffer, no active fault, no tap, a unicast
     * destination, at most 64 datagrams and 65,507 bytes), else one send each as {@link #send(ByteBuffer, int,
     * InetSocketAddress)}. The buffer's position and limit are as they were when it returns.
     *
     * @param datagrams   the datagrams, from position to limit
     * @param segmentSize the size of every datagram but the last
     * @param dstIp       the destination IPv4 address as a big-endian int
     * @param destination the same address with the destination UDP port
     * @return {@link SendResult#SENT} when every datagram was sent, else what became of one that was not
     * @throws IllegalStateException if the port is closed
     * @throws IllegalArgumentException if {@code segmentSize} is not positive
     */
    public SendResult sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
        requireOpen();
        return transmission.sendSegments(datagrams, segmentSize, dstIp, destination);
    }

    /**
     * Whether runs of datagrams leave in one system call ({@link #sendSegments}): Linux with native access enabled
     * for soft-roce ({@code --enable-native-access}), unless {@code -Dibex.softroce.gso=false}.
     *
     * @return whether this port sends with UDP segmentation offload
     */
    public boolean segmenting() {
        return transmission.segmenting();
    }

    // ---- multicast ----------------------------------------------------------------------------------

    /**
     * Joins the IPv4 multicast group {@code group} on this port's interface. Every group of a port is received by
     * one thread (see {@link GroupReceiver}): joining opens a socket bound to (group, port) and registers it, and
     * starts no thread. Datagrams to the group reach the handler with {@link PacketBuffer#dstIp()} = the group —
     * including this port's own, as IP multicast loops back.
     *
     * @return false if already joined
     * @throws IOException when the OS refuses the socket or the join (e.g. no file descriptor left)
     * @param group the group's IPv4 address as a big-endian int
     */
    public boolean joinMulticast(int group) throws IOException {
        requireOpen();
        if (!Ipv4.isMulticast(group)) {
            throw new IllegalArgumentException(Ipv4.toString(group) + " is not an IPv4 multicast address");
        }
        return groups.join(group, networkInterface, udpPort, requestedReceiveBuffer);
    }

    /**
     * Leaves {@code group}; returns false if not joined. Returns at once (no thread to wait for).
     *
     * @param group the group's IPv4 address as a big-endian int
     * @return {@code true} when the port was joined to it
     */
    public boolean leaveMulticast(int group) {
        return groups.leave(group);
    }

    /**
     * Whether this port has joined {@code group}.
     *
     * @param group the group's IPv4 address as a big-endian int
     * @return {@code true} when joined
     */
    public boolean isJoined(int group) {
        return groups.isJoined(group);
    }

    /**
     * How many groups this port has joined.
     *
     * @return the number of groups joined now
     */
    public int joinedGroups() {
        return groups.size();
    }

    // ---- receiving (PortReception) --------------------------------------------------------------------

    /**
     * What one receive thread keeps between datagrams: its buffer and the last sender it decoded.
     *
     * <p>Threading: confined to the thread it was made for.
     */
    public final class Reader {
        private Reader() {}

        PacketBuffer buf;
        SocketAddress lastFrom; // the JDK hands back the same object while the sender does not change
        int fromIp, fromPort;

        /** Gives the buffer back unless a handler kept it. */
        public void release() {
            if (buf != null && !buf.isRetained()) {
                pool.give(buf);
            }
            buf = null;
        }
    }

    /**
     * A reader for one thread that reads this port's sockets ({@link #receiveAvailable}); release it when done.
     *
     * @return a new reader, holding no buffer yet
     */
    public Reader newReader() {
        return new Reader();
    }

    /**
     * Hands the unicast socket's reception to the caller (run to completion: an event loop reads the socket itself
     * instead of a receive thread handing each packet over): the receive thread ends, the socket turns non-blocking,
     * and from now on only the caller reads it, with {@link #receiveAvailable} when its selector says the returned
     * channel is readable. A datagram the receive thread had read is delivered before this returns.
     *
     * @return the socket, non-blocking, to register with the caller's selector for reading
     * @throws IllegalStateException when reception is lent already or the port is closed
     */
    public DatagramChannel lendReception() {
        return reception.lend();
    }

    /**
     * Takes reception back from the thread it was lent to (after that thread deregistered the channel from its
     * selector and closed it): the socket blocks again and a receive thread reads it. No-op when not lent or closed.
     */
    public void reclaimReception() {
        reception.reclaim();
    }

    /**
     * Reads and delivers, on the calling thread, up to {@code max} datagrams that are waiting — never blocks. For the
     * thread reception is lent to ({@link #lendReception}).
     *
     * @param reader the calling thread's reader ({@link #newReader})
     * @param max the most datagrams to read in this call
     * @return how many were read (fewer than {@code max}: the socket is empty for now)
     */
    public int receiveAvailable(Reader reader, int max) {
        return reception.receiveAvailable(reader, max);
    }

    /**
     * After {@link #lendReception}: from now on the borrower reads the port through a socket of its own, in which it
     * may also wait ({@link #receiveWaiting}), instead of the channel behind a selector — for a thread that reads this
     * port alone. Needs the libc sockets and the offload socket's group ({@link #segmenting()} at open) and
     * {@code -Dibex.softroce.directReceive} not {@code false}; {@link #reclaimReception} ends it.
     *
     * @return whether the borrower now reads directly (false: keep to the channel and its selector)
     * @throws IllegalStateException when reception is not lent or the port is closed
     */
    public boolean receiveDirectly() {
        return reception.receiveDirectly();
    }

    /**
     * Reads and delivers one datagram, waiting for it up to {@code waitNanos} — the borrower's sleep, when it reads
     * directly ({@link #receiveDirectly}); otherwise (reclaimed, closed) it reads nothing and sleeps at most 10 ms. A
     * wait ends early for {@link #nudge}.
     *
     * @param reader the calling thread's reader
     * @param waitNanos the longest wait (negative: for ever); it may end early, or late by the thread's timer slack
     * @return 0 if no datagram was read, {@link #WAITED} if one was read after the call slept for it (the socket was
     *     empty), 1 if one was there already (the reader is behind)
     */
    public int receiveWaiting(Reader reader, long waitNanos) {
        return reception.receiveWaiting(reader, waitNanos);
    }

    /** {@link #receiveWaiting}: a datagram was read after the call slept for it. */
    public static final int WAITED = 2;

    /**
     * How late the reader woke for the datagram (or wake-up) its last direct read slept for, from the datagram's
     * receive timestamp; as {@code InlineReception.wakeLagNanos}. Reader's thread only.
     *
     * @return the lag in ns; 0 when the read slept without reading or the timestamp is not known; -1 when the last read
     *     did not sleep (or the port does not read directly)
     */
    public long wakeLagNanos() {
        return reception.wakeLagNanos();
    }

    /** Ends a {@link #receiveWaiting} in progress or the next one (an empty datagram to this port); any thread. */
    public void nudge() {
        reception.nudge();
    }

    /** The receive path, for the port's multicast groups ({@link GroupReceiver}). */
    PortReception reception() {
        return reception;
    }

    // ---- lifecycle ----------------------------------------------------------------------------------

    private void requireOpen() {
        if (!open) {
            throw new IllegalStateException("soft port " + name + " is closed");
        }
    }

    /**
     * Closes the sockets, stops every thread of this port (waiting for them, except the calling one if the
     * handler closes its own port) and discards held datagrams. After it returns the handler is not called
     * again and the address/port can be bound anew. Idempotent.
     */
    @Override
    public void close() {
        synchronized (closeLock) {
            if (!open) {
                return;
            }
            open = false;
        }
        reception.closeDirect(); // wakes the loop reading it, if one waits there
        closeQuietly(channel);
        transmission.closeSegmenting();
        groups.close();
        reception.awaitReceiver();
        timer.close();
        reception.discardHeld();
        transmission.discardHeld();
        LOG.debug("port {} closed: {}", name, stats());
    }

    /** Waits (bounded) for one of this port's threads to end; not for the calling thread itself. */
    void joinThread(Thread t) {
        if (t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(JOIN_MILLIS);
            if (t.isAlive()) {
                LOG.warn("port {}: thread {} did not stop", name, t.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(DatagramChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            LOG.debug("closing a channel failed: {}", e.toString());
        }
    }

    @Override
    public String toString() {
        return "SoftPort[" + name + (open ? "" : " closed") + ", " + networkInterface.getName() + ", " + pathMtu
                + "]";
    }
}
