package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Field-width checks and small helpers shared by the MAD codecs. */
final class Fields {
    private Fields() {
    }

    /** Checks that {@code value} fits in {@code bits} unsigned bits. */
    static int bits(int value, int bits, String field) {
        if (bits < 32 && (value >>> bits) != 0) {
            throw new IllegalArgumentException(field + " " + value + " (0x" + Integer.toHexString(value)
                    + ") does not fit in " + bits + " bits");
        }
        return value;
    }

    /** Checks that {@code data} is non-null and at most {@code max} bytes. */
    static Octets limit(Octets data, int max, String what) {
        Objects.requireNonNull(data, what);
        if (data.length() > max) {
            throw new IllegalArgumentException(what + " of " + data.length() + " bytes exceeds the " + max
                    + "-byte field");
        }
        return data;
    }

    /** Throws unless {@code size} bytes are readable at {@code offset}. */
    static void require(MemorySegment s, long offset, int size, String what) throws MalformedPacketException {
        if (offset < 0 || s.byteSize() - offset < size) {
            throw new MalformedPacketException(Reason.TRUNCATED, what + " needs " + size + " bytes at offset "
                    + offset + " of a " + s.byteSize() + "-byte segment");
        }
    }

    /** Zeroes {@code length} bytes (CM messages are written whole, reserved bytes included). */
    static void zero(MemorySegment s, long offset, int length) {
        s.asSlice(offset, length).fill((byte) 0);
    }

    static int u8(MemorySegment s, long o) {
        return NetworkOrder.u8(s, o);
    }

    static int u16(MemorySegment s, long o) {
        return NetworkOrder.u16(s, o);
    }

    static int u24(MemorySegment s, long o) {
        return NetworkOrder.u24(s, o);
    }

    static int u32(MemorySegment s, long o) {
        return NetworkOrder.u32(s, o);
    }

    static long u64(MemorySegment s, long o) {
        return NetworkOrder.u64(s, o);
    }

    static MalformedPacketException badField(String detail) {
        return new MalformedPacketException(Reason.BAD_FIELD, detail);
    }
}
