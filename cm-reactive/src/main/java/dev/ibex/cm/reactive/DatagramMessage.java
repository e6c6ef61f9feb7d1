package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.Gid;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * One received unreliable datagram (UD unicast or multicast), as {@link DatagramEndpoint#receive()} and
 * {@link RdmaMembership#receive()} emit it: the payload (after the 40-byte GRH, which is not part of it) and who sent
 * it. Same ownership rule as {@link Message}: valid during {@code onNext}, released after it unless
 * {@link #retain() retained}; a retained datagram must be {@link #release() released}, which re-posts its receive.
 */
public final class DatagramMessage {
    private final Message message;
    private final int sourceQp;

    DatagramMessage(Buffer buffer) {
        this.message = Message.received(buffer);
        this.sourceQp = buffer.sourceQp();
    }

    /**
     * The payload, a slice of registered memory (valid until released).
     *
     * @return the payload, {@link #length()} bytes, the GRH excluded
     * @throws IllegalStateException when the datagram was released
     */
    public MemorySegment payload() {
        return message.payload();
    }

    /**
     * The payload's length in bytes (the GRH not counted).
     *
     * @return the payload's length
     */
    public int length() {
        return message.length();
    }

    /**
     * Whether the sender attached 32 bits of immediate data.
     *
     * @return {@code true} when {@link #immData()} carries it
     */
    public boolean hasImmData() {
        return message.hasImmData();
    }

    /**
     * The sender's immediate data (valid when {@link #hasImmData()}).
     *
     * @return the immediate data in host order; meaningful only when {@link #hasImmData()}
     */
    public int immData() {
        return message.immData();
    }

    /**
     * A copy of the payload.
     *
     * @return a new array holding the payload
     * @throws IllegalStateException when the datagram was released
     */
    public byte[] toByteArray() {
        return message.toByteArray();
    }

    /**
     * A read-only view of the payload (valid until released).
     *
     * @return a read-only buffer over the payload
     * @throws IllegalStateException when the datagram was released
     */
    public ByteBuffer asByteBuffer() {
        return message.asByteBuffer();
    }

    /**
     * The payload decoded as UTF-8 (a copy).
     *
     * @return the payload as a string
     * @throws IllegalStateException when the datagram was released
     */
    public String asString() {
        return message.asString();
    }

    /**
     * The QP number of the sender (reply to it with {@link DatagramEndpoint#replyTo}).
     *
     * @return the source QP number (24 bits)
     */
    public int sourceQp() {
        return sourceQp;
    }

    /**
     * The sender's IP address, from the GRH (on RoCEv2 the IPv4 header), or {@code null} when the GRH is not valid.
     * Valid until released.
     *
     * @return the sender's address, or {@code null}
     * @throws IllegalStateException when the datagram was released
     */
    public InetAddress sourceAddress() {
        Gid g = message.buffer().sourceGid();
        return g == null ? null : g.toInetAddress();
    }

    /**
     * The payload as a {@link Message} (same buffer and ownership: forwarding it with {@code send} consumes it).
     *
     * @return the same message, sharing this datagram's state
     */
    public Message message() {
        return message;
    }

    /**
     * Keeps the datagram beyond {@code onNext}; the caller must {@link #release()} it.
     *
     * @return this datagram
     * @throws IllegalStateException when it was already retained or released
     */
    public DatagramMessage retain() {
        message.retain();
        return this;
    }

    /**
     * Gives the buffer back (a receive is re-posted). Any thread; {@code false} when released before.
     *
     * @return {@code true} when this call released it
     */
    public boolean release() {
        return message.release();
    }

    /**
     * Whether the buffer went back (after {@code onNext} unless retained, or by {@link #release()}). Any thread.
     *
     * @return {@code true} once released
     */
    public boolean isReleased() {
        return message.isReleased();
    }

    Buffer buffer() {
        return message.buffer();
    }

    void afterDelivery() {
        message.afterDelivery();
    }

    @Override
    public String toString() {
        return "DatagramMessage[" + message.length() + " B from QP 0x" + Integer.toHexString(sourceQp)
                + (message.isReleased() ? ", released" : "") + "]";
    }
}
