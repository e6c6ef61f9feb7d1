package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;

/**
 * ACK Extended Transport Header (4 bytes): syndrome (8) and MSN (24), plus helpers that build and decode
 * syndromes (IBTA 9.7.5.1).
 *
 * <pre>
 * syndrome bit 7     reserved (0)
 * bits 6..5          00 ACK · 01 RNR NAK · 10 reserved · 11 NAK
 * bits 4..0          ACK: credit count (0x1F = unlimited) · RNR NAK: timer code · NAK: {@link NakCode}
 * </pre>
 */
public final class Aeth {
    /** Header length in bytes. */
    public static final int SIZE = 4;
    /** Credit count meaning "invalid/unlimited"; rxe always sends it. */
    public static final int CREDITS_UNLIMITED = 0x1F;

    /** The kind of response a syndrome encodes. */
    public enum Type {
        ACK, RNR_NAK, RESERVED, NAK;

        private static final Type[] BY_BITS = values();
    }

    /** NAK codes (syndrome bits 4..0 when the type is NAK). */
    public enum NakCode {
        PSN_SEQUENCE_ERROR(0),
        INVALID_REQUEST(1),
        REMOTE_ACCESS_ERROR(2),
        REMOTE_OPERATIONAL_ERROR(3),
        /** RD only; never sent by this stack. */
        INVALID_RD_REQUEST(4);

        private final int code;

        NakCode(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        /** The NAK code with this value, or {@code null} for reserved values 5–31. */
        public static NakCode of(int code) {
            return code >= 0 && code <= 4 ? values()[code] : null;
        }
    }

    private Aeth() {
    }

    /** The 8-bit syndrome. */
    public static int syndrome(MemorySegment s, long o) {
        return NetworkOrder.u8(s, o);
    }

    public static void syndrome(MemorySegment s, long o, int syndrome) {
        NetworkOrder.u8(s, o, Bth.checkWidth(syndrome, 0xFF, "AETH syndrome"));
    }

    /** Message sequence number (24 bits). */
    public static int msn(MemorySegment s, long o) {
        return NetworkOrder.u24(s, o + 1);
    }

    public static void msn(MemorySegment s, long o, int msn) {
        NetworkOrder.u24(s, o + 1, Bth.checkWidth(msn, 0xFF_FFFF, "MSN"));
    }

    // ---- syndrome construction -------------------------------------------------------------------

    /** An ACK syndrome with {@code credits} (0–31; {@link #CREDITS_UNLIMITED} = no flow control). */
    public static int ack(int credits) {
        return Bth.checkWidth(credits, 0x1F, "ACK credit count");
    }

    /** An RNR NAK syndrome asking the requester to wait timer code {@code timerCode} (see {@link RnrTimer}). */
    public static int rnrNak(int timerCode) {
        return 0x20 | Bth.checkWidth(timerCode, 0x1F, "RNR timer code");
    }

    /** A NAK syndrome. */
    public static int nak(NakCode code) {
        return 0x60 | code.code();
    }

    // ---- syndrome decoding -----------------------------------------------------------------------

    /** ACK, RNR NAK, NAK or reserved. */
    public static Type type(int syndrome) {
        return Type.BY_BITS[(syndrome >>> 5) & 0x3];
    }

    /** Syndrome bits 4..0: credits, RNR timer code or NAK code, depending on {@link #type(int)}. */
    public static int value(int syndrome) {
        return syndrome & 0x1F;
    }

    /** Credit count of an ACK syndrome. */
    public static int credits(int syndrome) {
        return syndrome & 0x1F;
    }

    /** RNR timer code of an RNR NAK syndrome. */
    public static int rnrTimerCode(int syndrome) {
        return syndrome & 0x1F;
    }

    /** NAK code of a NAK syndrome, or {@code null} if it is a reserved value. */
    public static NakCode nakCode(int syndrome) {
        return NakCode.of(syndrome & 0x1F);
    }

    /** Human-readable syndrome, e.g. {@code "ACK credits=31"}, {@code "RNR NAK timer=14"}. */
    public static String describe(int syndrome) {
        return switch (type(syndrome)) {
            case ACK -> "ACK credits=" + credits(syndrome);
            case RNR_NAK -> "RNR NAK timer=" + rnrTimerCode(syndrome);
            case NAK -> {
                NakCode c = nakCode(syndrome);
                yield "NAK " + (c == null ? "reserved code " + value(syndrome) : c.name());
            }
            case RESERVED -> "reserved syndrome 0x" + Integer.toHexString(syndrome);
        };
    }
}
