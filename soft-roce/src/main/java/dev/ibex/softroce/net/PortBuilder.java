package dev.ibex.softroce.net;

import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.wire.Mtu;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.util.Objects;

/**
 * Configures and opens a {@link SoftPort} ({@link SoftPort#builder}): its address and UDP port, socket and pool
 * buffers, path MTU, fault injector, tap and datagram handler.
 *
 * <p>Threading: confined to the thread that configures it.
 */
public final class PortBuilder {
    final Inet4Address address;
    int udpPort = SoftPort.ROCE_PORT;
    int receiveBufferBytes = 4 << 20;
    int sendBufferBytes = 4 << 20;
    int bufferCount = 128;
    int bufferSize = 8192;
    Mtu pathMtu;
    FaultInjector faults;
    PcapWriter tap;
    DatagramHandler handler;

    PortBuilder(Inet4Address address) {
        this.address = address;
    }

    /**
     * UDP port; default 4791, 0 for an ephemeral one.
     *
     * @param port 0 to 65535
     * @return this builder
     * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
     */
    public PortBuilder udpPort(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port " + port + " is outside 0..65535");
        }
        this.udpPort = port;
        return this;
    }

    /**
     * Requested SO_RCVBUF (default 4 MiB; the kernel caps it at net.core.rmem_max).
     *
     * @param bytes the requested size in bytes, positive
     * @return this builder
     * @throws IllegalArgumentException when {@code bytes} is not positive
     */
    public PortBuilder receiveBufferBytes(int bytes) {
        this.receiveBufferBytes = positive(bytes, "receive buffer");
        return this;
    }

    /**
     * Requested SO_SNDBUF (default 4 MiB).
     *
     * @param bytes the requested size in bytes, positive
     * @return this builder
     * @throws IllegalArgumentException when {@code bytes} is not positive
     */
    public PortBuilder sendBufferBytes(int bytes) {
        this.sendBufferBytes = positive(bytes, "send buffer");
        return this;
    }

    /**
     * Receive buffers: {@code count} (default 128) of {@code size} bytes (default 8192). A datagram that
     * fills a whole buffer is dropped as possibly truncated, so {@code size} must exceed the largest
     * datagram (MTU + 44 bytes of headers and ICRC).
     *
     * @param count how many receive buffers the pool holds, positive
     * @param size  each buffer's size in bytes, positive
     * @return this builder
     * @throws IllegalArgumentException when {@code count} or {@code size} is not positive
     */
    public PortBuilder receiveBuffers(int count, int size) {
        this.bufferCount = positive(count, "buffer count");
        this.bufferSize = positive(size, "buffer size");
        return this;
    }

    /**
     * Overrides the path MTU derived from the interface MTU.
     *
     * @param mtu the path MTU to use
     * @return this builder
     */
    public PortBuilder pathMtu(Mtu mtu) {
        this.pathMtu = Objects.requireNonNull(mtu, "mtu");
        return this;
    }

    /**
     * A (possibly shared) fault injector; by default each port gets its own, seeded with 0.
     *
     * @param injector the fault injector to apply
     * @return this builder
     */
    public PortBuilder faults(FaultInjector injector) {
        this.faults = Objects.requireNonNull(injector, "injector");
        return this;
    }

    /**
     * A pcap tap from the start; see {@link SoftPort#tap}.
     *
     * @param writer the pcap writer, or {@code null} for none
     * @return this builder
     */
    public PortBuilder tap(PcapWriter writer) {
        this.tap = writer;
        return this;
    }

    /**
     * The receiver of every datagram (required).
     *
     * @param handler called with every datagram received, on the port's receive threads
     * @return this builder
     */
    public PortBuilder handler(DatagramHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /**
     * Binds the socket and starts receiving.
     *
     * @throws IOException if the address is not local or the port is in use ({@link java.net.BindException})
     * @return the open port
     * @throws IllegalStateException when no handler was set
     */
    public SoftPort open() throws IOException {
        if (handler == null) {
            throw new IllegalStateException("a soft port needs a datagram handler");
        }
        NetworkInterface nif = LocalInterface.of(address);
        if (nif == null) {
            throw new java.net.BindException("no local interface has address " + address.getHostAddress());
        }
        if (pathMtu == null) {
            Mtu.fromNetdevMtu(nif.getMTU()); // fail before binding if the interface cannot carry RoCE
        }
        PortSockets sockets = PortSockets.bind(address, udpPort, nif, receiveBufferBytes, sendBufferBytes);
        try {
            return new SoftPort(this, sockets.channel(), sockets.gso(), nif);
        } catch (IOException | RuntimeException e) {
            sockets.close();
            throw e;
        }
    }

    private static int positive(int v, String what) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive, not " + v);
        }
        return v;
    }
}
