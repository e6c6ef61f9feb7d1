package dev.ibex.cm.buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A peer's registered memory as the target of RDMA WRITE, READ and atomics: its address, remote key and length.
 * Small enough ({@value #BYTES} bytes, big-endian: address u64, rkey u32, length u32) to travel in connect/accept
 * private data or in a message; {@link #encode}/{@link #decode} are the codec.
 *
 * @param address the remote virtual address of the first byte (as the peer's verbs see it)
 * @param rkey the remote key the peer granted (a memory window's or region's)
 * @param length the length in bytes, not negative
 */
public record RemoteBuffer(long address, int rkey, int length) {
    /** Encoded size. */
    public static final int BYTES = 16;

    private static final ValueLayout.OfLong LONG_BE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * Validates the length.
     *
     * @throws IllegalArgumentException when {@code length} is negative
     */
    public RemoteBuffer {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative, got " + length);
        }
    }

    /**
     * The sub-range {@code [offset, offset + length)}.
     *
     * @param offset where the sub-range starts, in bytes from {@link #address()}
     * @param length its length in bytes
     * @return a descriptor with the same rkey
     * @throws IllegalArgumentException when it does not lie inside this buffer
     */
    public RemoteBuffer slice(long offset, int length) {
        checkRange(offset, length);
        return new RemoteBuffer(address + offset, rkey, length);
    }

    /**
     * Checks that {@code [offset, offset + length)} lies inside this buffer.
     *
     * @param offset the range's start, in bytes from {@link #address()}
     * @param length the range's length in bytes
     * @throws IllegalArgumentException when it does not
     */
    public void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > this.length) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length)
                    + ") lies outside the remote buffer of " + this.length + " bytes");
        }
    }

    /**
     * Writes the {@value #BYTES}-byte encoding at {@code offset}.
     *
     * @param dst where to write
     * @param offset the byte offset in {@code dst}
     * @throws IndexOutOfBoundsException when {@code dst} has no room there
     */
    public void encode(MemorySegment dst, long offset) {
        dst.set(LONG_BE, offset, address);
        dst.set(INT_BE, offset + 8, rkey);
        dst.set(INT_BE, offset + 12, length);
    }

    /**
     * Writes the {@value #BYTES}-byte encoding into {@code dst} at {@code offset}.
     *
     * @param dst where to write
     * @param offset the byte offset in {@code dst}
     * @throws IndexOutOfBoundsException when {@code dst} has no room there
     */
    public void encode(byte[] dst, int offset) {
        encode(MemorySegment.ofArray(dst), offset);
    }

    /** {@return the {@value #BYTES}-byte encoding, e.g. as connect private data} */
    public byte[] toBytes() {
        byte[] b = new byte[BYTES];
        encode(b, 0);
        return b;
    }

    /**
     * Reads an encoding written by {@link #encode(MemorySegment, long)}.
     *
     * @param src where to read
     * @param offset the byte offset in {@code src}
     * @return the descriptor
     * @throws IllegalArgumentException when fewer than {@value #BYTES} bytes follow {@code offset}, or the length
     *     is negative
     */
    public static RemoteBuffer decode(MemorySegment src, long offset) {
        if (offset < 0 || offset + BYTES > src.byteSize()) {
            throw new IllegalArgumentException("a remote buffer descriptor needs " + BYTES + " bytes at offset "
                    + offset + ", the source has " + src.byteSize());
        }
        return new RemoteBuffer(src.get(LONG_BE, offset), src.get(INT_BE, offset + 8), src.get(INT_BE, offset + 12));
    }

    /**
     * Reads an encoding from {@code src} at {@code offset} (e.g. the peer's private data).
     *
     * @param src where to read
     * @param offset the byte offset in {@code src}
     * @return the descriptor
     * @throws IllegalArgumentException when fewer than {@value #BYTES} bytes follow {@code offset}, or the length
     *     is negative
     */
    public static RemoteBuffer decode(byte[] src, int offset) {
        return decode(MemorySegment.ofArray(src), offset);
    }
}
