package dev.ibex.verbs.ffi.struct;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The C scalar types of the x86_64 Linux ABI as {@link ValueLayout}s, and the helpers the struct classes
 * use to find field offsets.
 *
 * <p>Conventions shared by every class in this package: one class per C struct (or union), named after it
 * in CamelCase; {@code LAYOUT} is the complete C layout with every padding byte explicit (the layout test
 * compiles a C program from it and compares each size and offset with gcc); {@code SIZE} is its
 * {@code sizeof}; {@code OFFSET_*} constants give field offsets; static accessors named after the C fields
 * read and write a field in a {@link MemorySegment}. Accessors never allocate except where they return
 * a {@link MemorySegment} or {@link String}. Unsigned C integers are returned in the next wider Java type
 * when they are 8 or 16 bits wide and as raw bits ({@code int}/{@code long}) when 32 or 64 bits wide.
 * Fields the C headers declare big-endian ({@code __be16/__be32/__be64}) are read and written as host
 * values: the accessors do the byte swapping.
 */
public final class Layouts {
    /** {@code uint8_t}. */
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    /** {@code uint16_t}. */
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT;
    /** {@code int}, {@code unsigned int}, {@code uint32_t} and every C enum (all 4 bytes here). */
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    /** {@code uint64_t}. */
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    /** {@code size_t}. */
    public static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
    /** Any data or function pointer. */
    public static final ValueLayout PTR = ValueLayout.ADDRESS;
    /** {@code __be16}: network byte order. */
    public static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code __be32}: network byte order. */
    public static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    /** {@code __be64}: network byte order. */
    public static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);

    private Layouts() {
    }

    /** {@code n} padding bytes. */
    public static PaddingLayout pad(long n) {
        return MemoryLayout.paddingLayout(n);
    }

    /** {@code char name[n]} (or any byte array). */
    public static MemoryLayout chars(String name, long n) {
        return MemoryLayout.sequenceLayout(n, ValueLayout.JAVA_BYTE).withName(name);
    }

    /**
     * A member whose inside the bindings never touch (a {@code pthread_mutex_t}, a block of function
     * pointers): only its size, alignment and position matter.
     */
    public static MemoryLayout opaque(String name, long size, long alignment) {
        return MemoryLayout.sequenceLayout(size, ValueLayout.JAVA_BYTE).withByteAlignment(alignment).withName(name);
    }

    /**
     * The byte offset of a member given as a C member designator ({@code "wr.rdma.remote_addr"}).
     * Unnamed group members stand for C anonymous unions/structs: their members are found as if they
     * belonged to the enclosing group, exactly as C resolves {@code wc.imm_data}.
     *
     * @throws IllegalArgumentException when the path names no member
     */
    public static long offset(GroupLayout layout, String path) {
        long offset = 0;
        GroupLayout group = layout;
        String[] parts = path.split("\\.");
        for (int i = 0; i < parts.length; i++) {
            Found found = find(group, parts[i]);
            if (found == null) {
                throw new IllegalArgumentException("no member " + path + " in " + layout.name().orElse("layout"));
            }
            offset += found.offset;
            if (i < parts.length - 1) {
                if (!(found.layout instanceof GroupLayout g)) {
                    throw new IllegalArgumentException(parts[i] + " in " + path + " is not a struct or union");
                }
                group = g;
            }
        }
        return offset;
    }

    /** The layout of the member named by {@code path} (same rules as {@link #offset}). */
    public static MemoryLayout member(GroupLayout layout, String path) {
        GroupLayout group = layout;
        MemoryLayout result = null;
        for (String part : path.split("\\.")) {
            Found found = find(group, part);
            if (found == null) {
                throw new IllegalArgumentException("no member " + path + " in " + layout.name().orElse("layout"));
            }
            result = found.layout;
            if (result instanceof GroupLayout g) {
                group = g;
            }
        }
        return result;
    }

    private record Found(MemoryLayout layout, long offset) {
    }

    private static Found find(GroupLayout group, String name) {
        long offset = 0;
        for (MemoryLayout m : group.memberLayouts()) {
            if (m.name().filter(name::equals).isPresent()) {
                return new Found(m, offset);
            }
            if (m.name().isEmpty() && m instanceof GroupLayout anonymous) {
                Found inner = find(anonymous, name);
                if (inner != null) {
                    return new Found(inner.layout, offset + inner.offset);
                }
            }
            if (group instanceof StructLayout) {
                offset += m.byteSize();
            }
        }
        return null;
    }

    /**
     * Reads the pointer at {@code offset} as a segment of {@code size} bytes, or {@link MemorySegment#NULL}
     * (size 0, so any access fails cleanly instead of touching address 0) when it is NULL.
     */
    public static MemorySegment pointer(MemorySegment segment, long offset, long size) {
        MemorySegment p = segment.get(ValueLayout.ADDRESS, offset);
        return p.address() == 0 ? MemorySegment.NULL : p.reinterpret(size);
    }

    /**
     * Reads a NUL-terminated C string stored in a fixed {@code char[max]} array; stops at {@code max}
     * when the array holds no NUL.
     */
    public static String cString(MemorySegment segment, long offset, int max) {
        int len = 0;
        while (len < max && segment.get(ValueLayout.JAVA_BYTE, offset + len) != 0) {
            len++;
        }
        byte[] bytes = new byte[len];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, bytes, 0, len);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Reads the C string a {@code char *} points to, or {@code null} for a NULL pointer. Meant for
     * library-owned static strings such as the result of {@code ibv_wc_status_str}.
     */
    public static String cString(MemorySegment pointer) {
        if (pointer.address() == 0) {
            return null;
        }
        return pointer.reinterpret(Integer.MAX_VALUE).getString(0);
    }
}
