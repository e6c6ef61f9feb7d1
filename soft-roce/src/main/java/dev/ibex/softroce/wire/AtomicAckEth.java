package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;

/** Atomic Acknowledge Extended Transport Header (8 bytes): the original remote data. */
public final class AtomicAckEth {
    /** Header length in bytes. */
    public static final int SIZE = 8;

    private AtomicAckEth() {
    }

    /** The value the target held before the atomic operation. */
    public static long originalData(MemorySegment s, long o) {
        return NetworkOrder.u64(s, o);
    }

    public static void originalData(MemorySegment s, long o, long value) {
        NetworkOrder.u64(s, o, value);
    }
}
