package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;

/** Datagram Extended Transport Header (8 bytes): Q_Key (32), reserved (8), source QP (24). */
public final class Deth {
    /** Header length in bytes. */
    public static final int SIZE = 8;
    /** The Q_Key of QP1 (GSI), carried by every CM MAD. */
    public static final int GSI_QKEY = 0x8001_0000;

    private Deth() {
    }

    /** Queue key. */
    public static int qKey(MemorySegment s, long o) {
        return NetworkOrder.u32(s, o);
    }

    public static void qKey(MemorySegment s, long o, int qKey) {
        NetworkOrder.u32(s, o, qKey);
    }

    /** Source QP number (24 bits). */
    public static int srcQp(MemorySegment s, long o) {
        return NetworkOrder.u24(s, o + 5);
    }

    /** Writes the source QP and clears the reserved byte. */
    public static void srcQp(MemorySegment s, long o, int qpn) {
        NetworkOrder.u8(s, o + 4, 0);
        NetworkOrder.u24(s, o + 5, Bth.checkWidth(qpn, Bth.QPN_MASK, "source QP"));
    }
}
