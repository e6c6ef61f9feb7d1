package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * A received message (or the result of an RDMA READ): a view of registered memory that Ibex lends to the
 * subscriber.
 *
 * <p><b>Ownership rule.</b> A message is valid while the subscriber's {@code onNext} runs; when {@code onNext}
 * returns, Ibex releases it (its buffer goes back to the pool and, for a receive, a receive credit is re-posted),
 * <em>unless</em> the subscriber called {@link #retain()} during {@code onNext}. A retained message belongs to
 * whoever retained it until {@link #release()} (any thread). Messages Ibex never delivered (queued when the
 * subscriber cancelled, or when the connection failed) are released by Ibex. So: process synchronously and forget
 * about it, or {@code retain()} before handing the message to another thread ({@code publishOn}, {@code flatMap},
 * a queue) and release it there; put {@code .doOnDiscard(Message.class, Message::release)} at the end of such a
 * chain so that operators which drop retained messages release them.
 *
 * <p>A message longer than one pool buffer (up to {@code ConnectionOptions.maxMessageSize}) arrives in several
 * buffers ({@link #isComposite()}): {@link #buffers()} gives them without a copy; {@link #payload()} and the
 * methods built on it copy the bytes into one heap segment first.
 *
 * <p>Releasing is idempotent (a discard hook and an explicit release may both run); using the payload after
 * release throws {@link IllegalStateException}.
 */
public final class Message {
    private static final int DELIVERING = 0;
    private static final int RETAINED = 1;
    private static final int RELEASED = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Message.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Buffer buffer;
    /** The buffers of a message of several; {@code null} for one buffer. */
    private final BufferList list;
    private final int offset;
    private final int length;
    private final boolean hasImm;
    private final int immData;
    private final boolean invalidated;
    private volatile int state;

    Message(Buffer buffer, int offset, int length, boolean hasImm, int immData) {
        this(buffer, offset, length, hasImm, immData, false);
    }

    private Message(Buffer buffer, int offset, int length, boolean hasImm, int immData, boolean invalidated) {
        this.buffer = buffer;
        this.list = null;
        this.offset = offset;
        this.length = length;
        this.hasImm = hasImm;
        this.immData = immData;
        this.invalidated = invalidated;
    }

    private Message(BufferList list) {
        this.buffer = null;
        this.list = list;
        this.offset = 0;
        this.length = (int) list.length();
        this.hasImm = list.hasImmData();
        this.immData = list.immData();
        this.invalidated = false;
    }

    /** A received message of several buffers. */
    static Message received(BufferList list) {
        return new Message(list);
    }

    /** A received message framed by its buffer ({@link Buffer#offset()}/{@link Buffer#length()}). */
    static Message received(Buffer b) {
        return b.hasInvalidatedRkey() ? new Message(b, b.offset(), b.length(), false, b.invalidatedRkey(), true)
                : new Message(b, b.offset(), b.length(), b.hasImmData(), b.immData());
    }

    /**
     * The payload, a slice of registered memory (valid until released).
     *
     * @return the payload, {@link #length()} bytes (a heap copy when {@link #isComposite()})
     * @throws IllegalStateException when the message was released
     */
    public MemorySegment payload() {
        checkLive();
        if (list != null) {
            return MemorySegment.ofArray(list.toByteArray()); // several buffers: one copy to make them one
        }
        return buffer.segment().asSlice(offset, length);
    }

    /**
     * Whether the message lies in several buffers ({@link #buffers()}); then {@link #payload()} copies.
     *
     * @return {@code true} when the payload spans several pool buffers
     */
    public boolean isComposite() {
        return list != null;
    }

    /**
     * The buffers of a message of several (valid until released; do not release them directly), or {@code null} for
     * a message of one buffer ({@link #buffer()}).
     *
     * @return the buffers in payload order, or {@code null}
     * @throws IllegalStateException when the message was released
     */
    public BufferList buffers() {
        checkLive();
        return list;
    }

    /**
     * Copies the payload to the start of {@code target}, from each buffer in turn (no intermediate copy).
     *
     * @param target where to copy to, at least {@link #length()} bytes long
     * @throws IllegalStateException when the message was released
     * @throws IndexOutOfBoundsException when {@code target} is shorter than the payload
     */
    public void copyTo(MemorySegment target) {
        checkLive();
        if (list != null) {
            list.copyTo(target);
        } else {
            MemorySegment.copy(buffer.segment(), offset, target, 0, length);
        }
    }

    /**
     * Payload length in bytes.
     *
     * @return the payload's length
     */
    public int length() {
        return length;
    }

    /**
     * Whether the sender attached 32 bits of immediate data.
     *
     * @return {@code true} when {@link #immData()} carries the sender's immediate data
     */
    public boolean hasImmData() {
        return hasImm;
    }

    /**
     * Whether the sender also invalidated one of this side's exposures with the message (SEND_WITH_INV): that
     * {@link RdmaExposure} has ended.
     *
     * @return {@code true} when {@link #invalidatedRkey()} names an exposure the sender ended
     */
    public boolean hasInvalidatedRkey() {
        return invalidated;
    }

    /**
     * The rkey the sender invalidated (valid when {@link #hasInvalidatedRkey()}).
     *
     * @return the invalidated rkey, or 0
     */
    public int invalidatedRkey() {
        return invalidated ? immData : 0;
    }

    /**
     * The immediate data (valid when {@link #hasImmData()}).
     *
     * @return the immediate data in host order; meaningful only when {@link #hasImmData()}
     */
    public int immData() {
        return immData;
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
     * A read-only {@link ByteBuffer} view of the payload (valid until released).
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
        return asString(StandardCharsets.UTF_8);
    }

    /**
     * The payload decoded with {@code charset} (a copy).
     *
     * @param charset the payload's character set
     * @return the payload as a string
     * @throws IllegalStateException when the message was released
     */
    public String asString(Charset charset) {
        return new String(toByteArray(), charset);
    }

    /**
     * The registered buffer behind the message (for zero-copy use; do not release it directly).
     *
     * @return the buffer the payload lies in (at its offset), still owned by the message
     * @throws IllegalStateException when the message was released, or lies in several buffers ({@link #buffers()})
     */
    public Buffer buffer() {
        checkLive();
        if (list != null) {
            throw new IllegalStateException("a message of " + list.count() + " buffers: use buffers()");
        }
        return buffer;
    }

    /**
     * Keeps the message beyond {@code onNext}: the caller now owns it and must {@link #release()} it.
     *
     * @return this message
     * @throws IllegalStateException when it was already retained or released
     */
    public Message retain() {
        if (!STATE.compareAndSet(this, DELIVERING, RETAINED)) {
            throw new IllegalStateException(state == RETAINED ? "the message is already retained"
                    : "the message was already released: retain it during onNext");
        }
        return this;
    }

    /**
     * Gives the buffer back (and, for a received message, lets the connection re-post a receive). Any thread.
     *
     * @return whether this call released it ({@code false} when it was released before)
     */
    public boolean release() {
        int s;
        do {
            s = state;
            if (s == RELEASED) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, RELEASED));
        free();
        return true;
    }

    /**
     * Whether the buffer went back (after {@code onNext} for a message not retained, or by {@link #release()}); a
     * released
     * message's payload may no longer be read. Any thread.
     *
     * @return {@code true} once released
     */
    public boolean isReleased() {
        return state == RELEASED;
    }

    /** After {@code onNext} returned: release unless retained (or already released). */
    void afterDelivery() {
        if (STATE.compareAndSet(this, DELIVERING, RELEASED)) {
            free();
        }
    }

    private void free() {
        if (list != null) {
            list.release();
        } else {
            buffer.release();
        }
    }

    private void checkLive() {
        if (state == RELEASED) {
            throw new IllegalStateException("the message was released (retain() it in onNext to keep it longer)");
        }
    }

    @Override
    public String toString() {
        return "Message[" + length + " B" + (list != null ? " in " + list.count() + " buffers" : "") + (hasImm ? ", imm 0x" + Integer.toHexString(immData) : "")
                + (state == RELEASED ? ", released" : "") + "]";
    }
}
