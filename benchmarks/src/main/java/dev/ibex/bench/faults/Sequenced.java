package dev.ibex.bench.faults;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * A numbered, self-checking message: {@code seq} (8 bytes), stream id (4), length (4), filler derived from seq and
 * stream, CRC32C of everything before it (4). A receiver tells a message that is intact, in order and exactly once
 * from one that is corrupt, reordered, lost or duplicated. The length is a function of (stream, seq), so it is
 * checked too; messages span one to three packets at a 4 KiB path MTU.
 *
 * <p>Threading: stateless, any thread.
 */
public final class Sequenced {
    /** The smallest message (header and checksum). */
    public static final int MIN = 20;
    /** Returned by {@link #check} for a message that is not intact. */
    public static final long CORRUPT = -1;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private Sequenced() {}

    /** The length of message {@code seq} of {@code stream}, at most {@code max} bytes. */
    public static int length(int stream, long seq, int max) {
        long h = mix(stream * 0x9E37_79B9_7F4A_7C15L + seq);
        int r = (int) ((h >>> 33) % 100);
        int bound = r < 70 ? 256 : r < 90 ? Math.min(4096, max) : max;
        return MIN + (int) ((h & 0x7FFF_FFFF) % Math.max(1, bound - MIN + 1));
    }

    /** Writes message {@code seq} of {@code stream} at {@code offset}; returns its length. */
    public static int write(MemorySegment s, long offset, int stream, long seq, int max) {
        int n = length(stream, seq, max);
        s.set(LONG, offset, seq);
        s.set(INT, offset + 8, stream);
        s.set(INT, offset + 12, n);
        for (int i = 16; i < n - 4; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, filler(stream, seq, i));
        }
        s.set(INT, offset + n - 4, crc(s, offset, n - 4));
        return n;
    }

    /**
     * The sequence number of the intact message of {@code stream} at {@code [offset, offset + length)}, or
     * {@link #CORRUPT} when its length, stream, filler or checksum is wrong.
     */
    public static long check(MemorySegment s, long offset, int length, int stream, int max) {
        if (length < MIN) {
            return CORRUPT;
        }
        long seq = s.get(LONG, offset);
        if (seq < 0 || s.get(INT, offset + 8) != stream || s.get(INT, offset + 12) != length
                || length(stream, seq, max) != length) {
            return CORRUPT;
        }
        if (s.get(INT, offset + length - 4) != crc(s, offset, length - 4)) {
            return CORRUPT;
        }
        for (int i = 16; i < length - 4; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, offset + i) != filler(stream, seq, i)) {
                return CORRUPT;
            }
        }
        return seq;
    }

    private static byte filler(int stream, long seq, int i) {
        return (byte) (seq * 131 + i * 7 + stream);
    }

    private static int crc(MemorySegment s, long offset, int length) {
        CRC32C c = new CRC32C();
        c.update(s.asSlice(offset, length).asByteBuffer());
        return (int) c.getValue();
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}
