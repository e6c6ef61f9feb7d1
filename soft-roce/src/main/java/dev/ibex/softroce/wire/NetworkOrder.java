package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Big-endian, unaligned accessors for wire fields, including the 24-bit fields InfiniBand uses for
 * QPNs and PSNs. Out-of-range offsets throw {@link IndexOutOfBoundsException}; parsers check lengths
 * first so that garbage never gets that far.
 */
public final class NetworkOrder {
    /** Unaligned big-endian 16-bit layout. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 32-bit layout. */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned big-endian 64-bit layout. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** Unaligned little-endian 32-bit layout (the ICRC's byte order). */
    public static final ValueLayout.OfInt U32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private NetworkOrder() {
    }

    /** Unsigned byte at {@code off}. */
    public static int u8(MemorySegment s, long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
    }

    /** Writes the low 8 bits of {@code v}. */
    public static void u8(MemorySegment s, long off, int v) {
        s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
    }

    /** Unsigned 16-bit value at {@code off}. */
    public static int u16(MemorySegment s, long off) {
        return s.get(U16, off) & 0xFFFF;
    }

    /** Writes the low 16 bits of {@code v}. */
    public static void u16(MemorySegment s, long off, int v) {
        s.set(U16, off, (short) v);
    }

    /** 24-bit value at {@code off} (three bytes). */
    public static int u24(MemorySegment s, long off) {
        return (u8(s, off) << 16) | u16(s, off + 1);
    }

    /** Writes the low 24 bits of {@code v} as three bytes. */
    public static void u24(MemorySegment s, long off, int v) {
        u8(s, off, v >>> 16);
        u16(s, off + 1, v);
    }

    /** 32-bit value at {@code off}. */
    public static int u32(MemorySegment s, long off) {
        return s.get(U32, off);
    }

    /** Writes a 32-bit value. */
    public static void u32(MemorySegment s, long off, int v) {
        s.set(U32, off, v);
    }

    /** 64-bit value at {@code off}. */
    public static long u64(MemorySegment s, long off) {
        return s.get(U64, off);
    }

    /** Writes a 64-bit value. */
    public static void u64(MemorySegment s, long off, long v) {
        s.set(U64, off, v);
    }
}
