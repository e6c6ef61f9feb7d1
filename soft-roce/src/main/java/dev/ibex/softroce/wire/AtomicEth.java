package dev.ibex.softroce.wire;

import static dev.ibex.softroce.wire.NetworkOrder.u32;
import static dev.ibex.softroce.wire.NetworkOrder.u64;

import java.lang.foreign.MemorySegment;

/**
 * Atomic Extended Transport Header (28 bytes): virtual address (64), R_Key (32), swap-or-add data (64),
 * compare data (64). FETCH_ADD uses only the add data; COMPARE_SWAP uses both.
 */
public final class AtomicEth {
    /** Header length in bytes. */
    public static final int SIZE = 28;

    private AtomicEth() {
    }

    /** Remote virtual address (must be 8-byte aligned; the responder checks). */
    public static long virtualAddress(MemorySegment s, long o) {
        return u64(s, o);
    }

    public static void virtualAddress(MemorySegment s, long o, long va) {
        u64(s, o, va);
    }

    /** Remote key. */
    public static int rKey(MemorySegment s, long o) {
        return u32(s, o + 8);
    }

    public static void rKey(MemorySegment s, long o, int rKey) {
        u32(s, o + 8, rKey);
    }

    /** Swap data (COMPARE_SWAP) or add data (FETCH_ADD). */
    public static long swapOrAdd(MemorySegment s, long o) {
        return u64(s, o + 12);
    }

    public static void swapOrAdd(MemorySegment s, long o, long value) {
        u64(s, o + 12, value);
    }

    /** Compare data (COMPARE_SWAP). */
    public static long compare(MemorySegment s, long o) {
        return u64(s, o + 20);
    }

    public static void compare(MemorySegment s, long o, long value) {
        u64(s, o + 20, value);
    }

    /** Writes all four fields. */
    public static void write(MemorySegment s, long o, long va, int rKey, long swapOrAdd, long compare) {
        virtualAddress(s, o, va);
        rKey(s, o, rKey);
        swapOrAdd(s, o, swapOrAdd);
        compare(s, o, compare);
    }
}
