package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;

/**
 * Immediate data (4 bytes). Opaque to the transport: verbs hand it to the application in network order
 * ({@code ibv_wc.imm_data} is {@code __be32}), so this returns the four bytes as a big-endian int.
 */
public final class ImmDt {
    /** Header length in bytes. */
    public static final int SIZE = 4;

    private ImmDt() {
    }

    public static int immediate(MemorySegment s, long o) {
        return NetworkOrder.u32(s, o);
    }

    public static void immediate(MemorySegment s, long o, int value) {
        NetworkOrder.u32(s, o, value);
    }
}
