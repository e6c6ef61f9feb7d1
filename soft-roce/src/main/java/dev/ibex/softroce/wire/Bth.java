package dev.ibex.softroce.wire;

import static dev.ibex.softroce.wire.NetworkOrder.u16;
import static dev.ibex.softroce.wire.NetworkOrder.u24;
import static dev.ibex.softroce.wire.NetworkOrder.u8;

import java.lang.foreign.MemorySegment;

/**
 * Base Transport Header (12 bytes), read and written in place at offset {@code o} of a segment.
 *
 * <pre>
 * byte 0      OpCode
 * byte 1      SE(0x80) MigReq(0x40) PadCnt(0x30) TVer(0x0F)
 * bytes 2-3   P_Key
 * byte 4      FECN(0x80) BECN(0x40) reserved(0x3F)
 * bytes 5-7   DestQP
 * byte 8      AckReq(0x80) reserved(0x7F)
 * bytes 9-11  PSN
 * </pre>
 * Setters of a flag byte keep the other bits of that byte. Values wider than their field throw
 * {@link IllegalArgumentException}.
 */
public final class Bth {
    /** Header length in bytes. */
    public static final int SIZE = 12;
    /** The default (full-membership) partition key, the only one rxe accepts. */
    public static final int DEFAULT_PKEY = 0xFFFF;
    /** DestQP of the general services interface (QP1), the target of CM MADs. */
    public static final int GSI_QPN = 1;
    /** DestQP of multicast packets. */
    public static final int MULTICAST_QPN = 0xFF_FFFF;
    /** QPNs are 24 bits wide. */
    public static final int QPN_MASK = 0xFF_FFFF;

    private Bth() {
    }

    /** Raw 8-bit opcode; see {@link Opcode#of(int)}. */
    public static int opcode(MemorySegment s, long o) {
        return u8(s, o);
    }

    public static void opcode(MemorySegment s, long o, int opcode) {
        u8(s, o, checkWidth(opcode, 0xFF, "opcode"));
    }

    /** Solicited event bit. */
    public static boolean solicitedEvent(MemorySegment s, long o) {
        return (u8(s, o + 1) & 0x80) != 0;
    }

    public static void solicitedEvent(MemorySegment s, long o, boolean se) {
        setBits(s, o + 1, 0x80, se ? 0x80 : 0);
    }

    /** MigReq bit (APM state). */
    public static boolean migReq(MemorySegment s, long o) {
        return (u8(s, o + 1) & 0x40) != 0;
    }

    public static void migReq(MemorySegment s, long o, boolean migReq) {
        setBits(s, o + 1, 0x40, migReq ? 0x40 : 0);
    }

    /** Number of pad bytes (0–3) after the payload. */
    public static int padCount(MemorySegment s, long o) {
        return (u8(s, o + 1) >>> 4) & 0x3;
    }

    public static void padCount(MemorySegment s, long o, int padCount) {
        setBits(s, o + 1, 0x30, checkWidth(padCount, 0x3, "PadCnt") << 4);
    }

    /** Transport header version; always 0. */
    public static int transportVersion(MemorySegment s, long o) {
        return u8(s, o + 1) & 0x0F;
    }

    public static void transportVersion(MemorySegment s, long o, int tver) {
        setBits(s, o + 1, 0x0F, checkWidth(tver, 0xF, "TVer"));
    }

    /** Partition key. */
    public static int pKey(MemorySegment s, long o) {
        return u16(s, o + 2);
    }

    public static void pKey(MemorySegment s, long o, int pKey) {
        u16(s, o + 2, checkWidth(pKey, 0xFFFF, "P_Key"));
    }

    /** Forward explicit congestion notification bit. */
    public static boolean fecn(MemorySegment s, long o) {
        return (u8(s, o + 4) & 0x80) != 0;
    }

    public static void fecn(MemorySegment s, long o, boolean fecn) {
        setBits(s, o + 4, 0x80, fecn ? 0x80 : 0);
    }

    /** Backward explicit congestion notification bit. */
    public static boolean becn(MemorySegment s, long o) {
        return (u8(s, o + 4) & 0x40) != 0;
    }

    public static void becn(MemorySegment s, long o, boolean becn) {
        setBits(s, o + 4, 0x40, becn ? 0x40 : 0);
    }

    /** Destination QP number (24 bits). */
    public static int destQp(MemorySegment s, long o) {
        return u24(s, o + 5);
    }

    public static void destQp(MemorySegment s, long o, int qpn) {
        u24(s, o + 5, checkWidth(qpn, QPN_MASK, "DestQP"));
    }

    /** Acknowledge-request bit. */
    public static boolean ackReq(MemorySegment s, long o) {
        return (u8(s, o + 8) & 0x80) != 0;
    }

    public static void ackReq(MemorySegment s, long o, boolean ackReq) {
        setBits(s, o + 8, 0x80, ackReq ? 0x80 : 0);
    }

    /** Packet sequence number (24 bits). */
    public static int psn(MemorySegment s, long o) {
        return u24(s, o + 9);
    }

    public static void psn(MemorySegment s, long o, int psn) {
        u24(s, o + 9, checkWidth(psn, Psn.MASK, "PSN"));
    }

    private static void setBits(MemorySegment s, long off, int mask, int bits) {
        u8(s, off, (u8(s, off) & ~mask) | bits);
    }

    static int checkWidth(int value, int mask, String field) {
        if ((value & ~mask) != 0) {
            throw new IllegalArgumentException(field + " 0x" + Integer.toHexString(value)
                    + " does not fit in its field (max 0x" + Integer.toHexString(mask) + ")");
        }
        return value;
    }
}
