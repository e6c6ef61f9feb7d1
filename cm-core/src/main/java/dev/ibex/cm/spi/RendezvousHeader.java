package dev.ibex.cm.spi;

import static dev.ibex.cm.spi.TagMatchingHeader.INT_BE;
import static dev.ibex.cm.spi.TagMatchingHeader.LONG_BE;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ibv_rvh} ({@code infiniband/tm_types.h}), the 16 bytes after the {@link TagMatchingHeader} of a
 * rendezvous request: where the payload lies at the sender (virtual address, rkey) and its length, all big-endian.
 * The receiver reads the payload with an RDMA READ under that rkey, checked like any other remote access. A reusable
 * flyweight; confined to one thread per instance.
 */
public final class RendezvousHeader {
    /** Bytes of the header. */
    public static final int SIZE = 16;
    /** Offset of {@code va} (big-endian 64 bits). */
    public static final int VA_OFFSET = 0;
    /** Offset of {@code rkey} (big-endian 32 bits). */
    public static final int RKEY_OFFSET = 8;
    /** Offset of {@code len} (big-endian 32 bits). */
    public static final int LEN_OFFSET = 12;

    private MemorySegment segment;
    private long offset;

    /** An unwrapped flyweight. */
    public RendezvousHeader() {}

    /**
     * Points this flyweight at the header at {@code offset}.
     *
     * @param segment the memory holding the message
     * @param offset where the header starts (after the TMH)
     * @param length how many bytes of the message are available from {@code offset}
     * @return this flyweight
     * @throws TmHeaderException when fewer than {@link #SIZE} bytes are available or the range lies outside
     *     {@code segment}
     */
    public RendezvousHeader wrap(MemorySegment segment, long offset, long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            throw new TmHeaderException("the range " + offset + "+" + length + " lies outside the "
                    + segment.byteSize() + " bytes given");
        }
        if (length < SIZE) {
            throw new TmHeaderException("a rendezvous header needs " + SIZE + " bytes, got " + length);
        }
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** {@return the payload's virtual address at the sender} */
    public long va() {
        return segment.get(LONG_BE, offset + VA_OFFSET);
    }

    /** {@return the rkey that lets the receiver read the payload} */
    public int rkey() {
        return segment.get(INT_BE, offset + RKEY_OFFSET);
    }

    /** {@return the payload's length in bytes (unsigned 32 bits)} */
    public long length() {
        return Integer.toUnsignedLong(segment.get(INT_BE, offset + LEN_OFFSET));
    }

    /**
     * Encodes a header at {@code offset} of {@code segment}.
     *
     * @param segment where to write
     * @param offset where the header starts; {@link #SIZE} bytes must fit
     * @param va the payload's virtual address
     * @param rkey its rkey
     * @param length its length in bytes (unsigned 32 bits)
     * @throws TmHeaderException for a length outside 32 bits or a range outside {@code segment}
     */
    public static void write(MemorySegment segment, long offset, long va, int rkey, long length) {
        if (length < 0 || length > 0xFFFF_FFFFL) {
            throw new TmHeaderException("a rendezvous length is 32 bits unsigned, got " + length);
        }
        if (offset < 0 || offset > segment.byteSize() - SIZE) {
            throw new TmHeaderException("a rendezvous header at " + offset + " does not fit in "
                    + segment.byteSize() + " bytes");
        }
        segment.set(LONG_BE, offset + VA_OFFSET, va);
        segment.set(INT_BE, offset + RKEY_OFFSET, rkey);
        segment.set(INT_BE, offset + LEN_OFFSET, (int) length);
    }
}
