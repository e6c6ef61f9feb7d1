package dev.ibex.cm.buffer;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * One message made of several registered buffers, in order: each entry is a held {@link Buffer} and the range
 * {@code [offset, offset + length)} of it that belongs to the message. This is how a message larger than a pool
 * buffer is sent ({@code Connection.send(BufferList, long)}: the buffers are consumed and the list is left empty for
 * reuse) and received ({@code ConnectionHandler.onMessage(Connection, BufferList)}: the application owns the buffers
 * until {@link #release()}). The bytes are never gathered into one place by Ibex; {@link #copyTo} does it on request.
 *
 * <p>A received list also carries the message's immediate data. Growing the list allocates; a list reused for
 * each message allocates nothing once it has reached its size. Loop-confined, except {@link #release()}, which may
 * run on any thread once the list is no longer changed.
 */
public final class BufferList {
    private Buffer[] buffers;
    private int[] offsets;
    private int[] lengths;
    private int count;
    private long length;
    private boolean hasImm;
    private int immData;

    /** An empty list with room for 4 entries before it grows. */
    public BufferList() {
        this(4);
    }

    /**
     * An empty list.
     *
     * @param capacity entries before the list grows (at least 1 is used)
     */
    public BufferList(int capacity) {
        int c = Math.max(1, capacity);
        buffers = new Buffer[c];
        offsets = new int[c];
        lengths = new int[c];
    }

    /**
     * Appends {@code buffer[offset, offset + length)}.
     *
     * @param buffer a held buffer, which the message takes from here on
     * @param offset where the entry starts in the buffer
     * @param length the entry's length in bytes
     * @return this list
     * @throws IllegalArgumentException when the range lies outside the buffer
     */
    public BufferList add(Buffer buffer, int offset, int length) {
        if (offset < 0 || length < 0 || offset > buffer.capacity() - length) {
            throw new IllegalArgumentException("range [" + offset + ", " + ((long) offset + length) + ") lies outside the "
                    + buffer.capacity() + "-byte buffer");
        }
        if (count == buffers.length) {
            int c = count * 2;
            buffers = Arrays.copyOf(buffers, c);
            offsets = Arrays.copyOf(offsets, c);
            lengths = Arrays.copyOf(lengths, c);
        }
        buffers[count] = buffer;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        this.length += length;
        return this;
    }

    /**
     * Appends the first {@code length} bytes of {@code buffer}.
     *
     * @param buffer a held buffer, which the message takes from here on
     * @param length the entry's length in bytes
     * @return this list
     * @throws IllegalArgumentException when {@code length} exceeds the buffer
     */
    public BufferList add(Buffer buffer, int length) {
        return add(buffer, 0, length);
    }

    /** {@return how many entries (buffers) the list has} */
    public int count() {
        return count;
    }

    /** {@return the message's length: the sum of the entries' lengths} */
    public long length() {
        return length;
    }

    /**
     * The buffer of entry {@code i}.
     *
     * @param i the entry's index, from 0 to {@link #count()} - 1
     * @return the entry's buffer
     * @throws IndexOutOfBoundsException when there is no such entry
     */
    public Buffer buffer(int i) {
        check(i);
        return buffers[i];
    }

    /**
     * Where entry {@code i}'s bytes start in its buffer.
     *
     * @param i the entry's index, from 0 to {@link #count()} - 1
     * @return the offset in bytes from the start of the buffer's segment
     * @throws IndexOutOfBoundsException when there is no such entry
     */
    public int offset(int i) {
        check(i);
        return offsets[i];
    }

    /**
     * The length of entry {@code i}.
     *
     * @param i the entry's index, from 0 to {@link #count()} - 1
     * @return the entry's length in bytes
     * @throws IndexOutOfBoundsException when there is no such entry
     */
    public int length(int i) {
        check(i);
        return lengths[i];
    }

    /**
     * Entry {@code i}'s bytes (a view of registered memory, valid until released).
     *
     * @param i the entry's index, from 0 to {@link #count()} - 1
     * @return a slice of the buffer's segment
     * @throws IndexOutOfBoundsException when there is no such entry
     */
    public MemorySegment segment(int i) {
        check(i);
        return buffers[i].segment().asSlice(offsets[i], lengths[i]);
    }

    /** {@return whether a received message carried immediate data} */
    public boolean hasImmData() {
        return hasImm;
    }

    /** {@return a received message's immediate data (host order); valid when {@link #hasImmData()}} */
    public int immData() {
        return immData;
    }

    /**
     * Copies the message's bytes, in order, to the start of {@code dst}.
     *
     * @param dst where to copy to; at least {@link #length()} bytes
     * @throws IllegalArgumentException when {@code dst} is too small
     */
    public void copyTo(MemorySegment dst) {
        if (dst.byteSize() < length) {
            throw new IllegalArgumentException("a " + length + "-byte message does not fit " + dst.byteSize()
                    + " bytes");
        }
        long at = 0;
        for (int i = 0; i < count; i++) {
            MemorySegment.copy(buffers[i].segment(), offsets[i], dst, at, lengths[i]);
            at += lengths[i];
        }
    }

    /** {@return a copy of the message's bytes} */
    public byte[] toByteArray() {
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("a " + length + "-byte message does not fit a byte[]");
        }
        byte[] out = new byte[(int) length];
        copyTo(MemorySegment.ofArray(out));
        return out;
    }

    /** Releases every buffer and empties the list. */
    public void release() {
        int n = count;
        count = 0; // (a release that runs an owner's callback sees an empty list)
        RuntimeException first = null;
        for (int i = 0; i < n; i++) {
            try {
                buffers[i].release();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        count = n;
        clear();
        if (first != null) {
            throw first;
        }
    }

    /** Forgets the entries without releasing them (their buffers now belong to whoever took them). */
    public void clear() {
        Arrays.fill(buffers, 0, count, null);
        count = 0;
        length = 0;
        hasImm = false;
        immData = 0;
    }

    /**
     * Framework side: the received message's immediate data.
     *
     * @param present whether the message carried immediate data
     * @param value the immediate data in host order (ignored when absent)
     */
    public void immData(boolean present, int value) {
        hasImm = present;
        immData = value;
    }

    private void check(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("entry " + i + " of " + count);
        }
    }

    @Override
    public String toString() {
        return "BufferList[" + count + " buffers, " + length + " B]";
    }
}
