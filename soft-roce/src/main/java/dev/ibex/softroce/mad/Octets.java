package dev.ibex.softroce.mad;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An immutable byte string with value equality: CM private data, reject info, additional info.
 * Decoded private data always has the full size of its wire field (the MAD carries no length),
 * zero-padded by the sender.
 */
public final class Octets {
    /** No bytes. */
    public static final Octets EMPTY = new Octets(new byte[0]);

    private final byte[] bytes;

    private Octets(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A copy of {@code bytes}. */
    public static Octets of(byte... bytes) {
        return bytes.length == 0 ? EMPTY : new Octets(bytes.clone());
    }

    /** {@code length} bytes copied from {@code s} at {@code offset}. */
    public static Octets copyOf(MemorySegment s, long offset, int length) {
        if (length == 0) {
            return EMPTY;
        }
        byte[] b = new byte[length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, b, 0, length);
        return new Octets(b);
    }

    /** {@code length} zero bytes. */
    public static Octets zeros(int length) {
        return length == 0 ? EMPTY : new Octets(new byte[length]);
    }

    /** Number of bytes. */
    public int length() {
        return bytes.length;
    }

    /** The byte at {@code index}. */
    public byte get(int index) {
        return bytes[index];
    }

    /** A fresh copy of the bytes. */
    public byte[] toArray() {
        return bytes.clone();
    }

    /** Writes the bytes at {@code offset} of {@code s}. */
    public void copyTo(MemorySegment s, long offset) {
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, offset, bytes.length);
    }

    /** A read-only segment view (no copy). */
    public MemorySegment asSegment() {
        return MemorySegment.ofArray(bytes).asReadOnly();
    }

    /** Bytes {@code [from, from + length)}. */
    public Octets slice(int from, int length) {
        return of(Arrays.copyOfRange(bytes, from, Math.addExact(from, length)));
    }

    /** These bytes followed by {@code other}'s. */
    public Octets concat(Octets other) {
        byte[] b = Arrays.copyOf(bytes, bytes.length + other.bytes.length);
        System.arraycopy(other.bytes, 0, b, bytes.length, other.bytes.length);
        return new Octets(b);
    }

    /** These bytes zero-padded (or kept) to at least {@code length} bytes. */
    public Octets padTo(int length) {
        return bytes.length >= length ? this : new Octets(Arrays.copyOf(bytes, length));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Octets other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Hex, with trailing zero bytes summarised (private data is mostly padding). */
    @Override
    public String toString() {
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] == 0) {
            end--;
        }
        String hex = HexFormat.of().formatHex(bytes, 0, end);
        return end == bytes.length ? "[" + hex + "]" : "[" + hex + " +" + (bytes.length - end) + " zero bytes]";
    }
}
