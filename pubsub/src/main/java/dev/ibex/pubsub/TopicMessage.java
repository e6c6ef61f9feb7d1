package dev.ibex.pubsub;

import dev.ibex.cm.reactive.DatagramMessage;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One published message as a subscriber receives it: its topic, publisher epoch and sequence number, and the payload
 * — a view of the registered receive buffer (the header is not part of it), never a copy.
 *
 * <p><b>Ownership</b>, as for cm-reactive's {@code Message}: valid while {@code onNext} runs and released after it,
 * unless {@link #retain() retained} during {@code onNext}; a retained message must be {@link #release() released}
 * (any thread), which gives the receive buffer back. Retained messages hold receive buffers the group's endpoint can
 * no longer post, so release promptly.
 */
public final class TopicMessage {
    private static final int DELIVERING = 0;
    private static final int RETAINED = 1;
    private static final int RELEASED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TopicMessage.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Topic topic;
    private final DatagramMessage datagram;
    private final long epoch;
    private final long sequence;
    private final long arrivalNanos;
    private volatile boolean owned; // this object holds a retain on the datagram (queued, or retained by the user)
    private volatile int state;

    TopicMessage(Topic topic, DatagramMessage datagram, long epoch, long sequence, long arrivalNanos) {
        this.topic = topic;
        this.datagram = datagram;
        this.epoch = epoch;
        this.sequence = sequence;
        this.arrivalNanos = arrivalNanos;
    }

    /**
     * The topic the message was published on.
     *
     * @return the topic's name
     */
    public String topic() {
        return topic.name();
    }

    /**
     * The publisher incarnation that sent it.
     *
     * @return the publisher's epoch (its start time in ns since 1970)
     */
    public long epoch() {
        return epoch;
    }

    /**
     * Its number in the epoch, from 1.
     *
     * @return the sequence number, 1 for the epoch's first message
     */
    public long sequence() {
        return sequence;
    }

    /**
     * When the subscriber's loop took it from the group ({@link System#nanoTime()}).
     *
     * @return the arrival time in {@link System#nanoTime()} units
     */
    public long arrivalNanos() {
        return arrivalNanos;
    }

    /**
     * The payload: a slice of registered memory, valid until released.
     *
     * @return the payload, {@link #length()} bytes, the header excluded
     * @throws IllegalStateException when the message was released
     */
    public MemorySegment payload() {
        checkLive();
        return datagram.payload().asSlice(FrameHeader.LENGTH);
    }

    /**
     * The payload's length, in bytes (the header not counted).
     *
     * @return the payload's length
     */
    public int length() {
        return datagram.length() - FrameHeader.LENGTH;
    }

    /**
     * A copy of the payload.
     *
     * @return a new array holding the payload
     * @throws IllegalStateException when the message was released
     */
    public byte[] toByteArray() {
        return payload().toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * A read-only view of the payload (valid until released).
     *
     * @return a read-only buffer over the payload
     * @throws IllegalStateException when the message was released
     */
    public ByteBuffer asByteBuffer() {
        return payload().asByteBuffer().asReadOnlyBuffer();
    }

    /**
     * The payload decoded as UTF-8 (a copy).
     *
     * @return the payload as a string
     * @throws IllegalStateException when the message was released
     */
    public String asString() {
        return new String(toByteArray(), StandardCharsets.UTF_8);
    }

    /**
     * The publisher's address (from the GRH), or {@code null} when unknown. Valid until released.
     *
     * @return the source address, or {@code null}
     * @throws IllegalStateException when the message was released
     */
    public InetAddress sourceAddress() {
        checkLive();
        return datagram.sourceAddress();
    }

    /**
     * Keeps the message beyond {@code onNext}; the caller must {@link #release()} it.
     *
     * @throws IllegalStateException when already retained or released
     * @return this message
     */
    public TopicMessage retain() {
        if (!STATE.compareAndSet(this, DELIVERING, RETAINED)) {
            throw new IllegalStateException(state == RETAINED ? "the message is already retained"
                    : "the message was already released: retain it during onNext");
        }
        if (!owned) {
            datagram.retain();
            owned = true;
        }
        return this;
    }

    /**
     * Gives the receive buffer back. Any thread; {@code false} when released before.
     *
     * @return {@code true} when this call released it
     */
    public boolean release() {
        int s;
        do {
            s = state;
            if (s == RELEASED) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, RELEASED));
        if (owned) {
            datagram.release();
        }
        return true;
    }

    /**
     * Whether the receive buffer was given back (after {@code onNext} for a message not retained, or by
     * {@link #release()}); a released message's payload may no longer be read. Any thread.
     *
     * @return {@code true} once released
     */
    public boolean isReleased() {
        return state == RELEASED;
    }

    /** Queued for later delivery: hold the datagram beyond the group's {@code onNext}. */
    TopicMessage hold() {
        datagram.retain();
        owned = true;
        return this;
    }

    /** After {@code onNext}: release unless the subscriber retained it. */
    void afterDelivery() {
        if (STATE.compareAndSet(this, DELIVERING, RELEASED) && owned) {
            datagram.release();
        }
    }

    private void checkLive() {
        if (state == RELEASED) {
            throw new IllegalStateException("the message was released (retain() it in onNext to keep it longer)");
        }
    }

    @Override
    public String toString() {
        return "TopicMessage[" + topic.name() + " #" + sequence + ", " + length() + " B"
                + (state == RELEASED ? ", released" : "") + "]";
    }
}
