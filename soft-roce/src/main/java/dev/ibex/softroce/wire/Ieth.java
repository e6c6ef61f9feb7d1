package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;

/** Invalidate Extended Transport Header (4 bytes): the R_Key a SEND_WITH_INVALIDATE invalidates. */
public final class Ieth {
    /** Header length in bytes. */
    public static final int SIZE = 4;

    private Ieth() {
    }

    public static int rKey(MemorySegment s, long o) {
        return NetworkOrder.u32(s, o);
    }

    public static void rKey(MemorySegment s, long o, int rKey) {
        NetworkOrder.u32(s, o, rKey);
    }
}
