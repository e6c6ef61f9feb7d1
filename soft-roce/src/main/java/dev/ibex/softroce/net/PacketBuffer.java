package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A datagram buffer with both views the stack needs: a {@link ByteBuffer} for the channel and a
 * {@link MemorySegment} over the same bytes for the codecs, plus the addressing of the datagram it holds.
 *
 * <p>Receive buffers come from the port's pool and are lent to the {@link DatagramHandler}: valid during the
 * callback, or until {@link #release()} after {@link #retain()}. Send buffers are allocated by senders with
 * {@link #allocateDirect(int)} and reused; their addressing fields are unused.
 */
public final class PacketBuffer {
    private final ByteBuffer buffer;
    private final MemorySegment segment;
    private final BufferPool pool;
    private int length;
    private int srcIp, srcPort, dstIp, dstPort;
    private boolean retained;

    PacketBuffer(ByteBuffer buffer, BufferPool pool) {
        this.buffer = buffer;
        this.segment = MemorySegment.ofBuffer(buffer);
        this.pool = pool;
    }

    /**
     * An unpooled direct buffer of {@code capacity} bytes, e.g. one per sending thread.
     *
     * @param capacity the buffer's size in bytes
     * @return the buffer
     */
    public static PacketBuffer allocateDirect(int capacity) {
        return new PacketBuffer(ByteBuffer.allocateDirect(capacity), null);
    }

    /**
     * The channel view; its position and limit are the port's business while a datagram is in flight.
     *
     * @return the buffer's {@link ByteBuffer} view
     */
    public ByteBuffer byteBuffer() {
        return buffer;
    }

    /**
     * The codec view of the whole buffer; the datagram is {@code [0, length())}.
     *
     * @return the buffer's {@link MemorySegment} view
     */
    public MemorySegment segment() {
        return segment;
    }

    /**
     * Buffer size.
     *
     * @return the capacity in bytes
     */
    public int capacity() {
        return buffer.capacity();
    }

    /**
     * Bytes of the received datagram (its UDP payload).
     *
     * @return the datagram's length in bytes
     */
    public int length() {
        return length;
    }

    /**
     * Sender IPv4 address.
     *
     * @return the sender's IPv4 address as a big-endian int
     */
    public int srcIp() {
        return srcIp;
    }

    /**
     * Sender UDP port.
     *
     * @return the sender's UDP port
     */
    public int srcPort() {
        return srcPort;
    }

    /**
     * Destination IPv4 address: the port's address, or the multicast group the datagram was sent to.
     *
     * @return the destination IPv4 address as a big-endian int
     */
    public int dstIp() {
        return dstIp;
    }

    /**
     * Destination UDP port.
     *
     * @return the destination UDP port
     */
    public int dstPort() {
        return dstPort;
    }

    /**
     * Keeps the buffer past the handler callback; the caller must {@link #release()} it.
     *
     * @return this buffer
     * @throws IllegalStateException when it is retained already
     */
    public PacketBuffer retain() {
        if (retained) {
            throw new IllegalStateException("buffer already retained");
        }
        retained = true;
        return this;
    }

    /** Returns a retained buffer to its pool (a no-op for unpooled buffers). */
    public void release() {
        if (!retained) {
            throw new IllegalStateException("buffer released without retain (or twice)");
        }
        retained = false;
        if (pool != null) {
            pool.give(this);
        }
    }

    boolean isRetained() {
        return retained;
    }

    void set(int length, int srcIp, int srcPort, int dstIp, int dstPort) {
        this.length = length;
        this.srcIp = srcIp;
        this.srcPort = srcPort;
        this.dstIp = dstIp;
        this.dstPort = dstPort;
    }

    /** A heap copy for fault injection (duplicates, held and delayed datagrams); not pooled. */
    PacketBuffer copy() {
        PacketBuffer c = new PacketBuffer(ByteBuffer.allocate(Math.max(length, 1)), null);
        MemorySegment.copy(segment, 0, c.segment, 0, length);
        c.set(length, srcIp, srcPort, dstIp, dstPort);
        return c;
    }

    @Override
    public String toString() {
        return "PacketBuffer[" + length + " bytes " + Ipv4.toString(srcIp) + ":" + srcPort + " -> "
                + Ipv4.toString(dstIp) + ":" + dstPort + "]";
    }
}
