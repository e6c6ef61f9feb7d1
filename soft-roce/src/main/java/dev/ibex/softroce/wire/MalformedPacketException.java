package dev.ibex.softroce.wire;

import java.util.Objects;

/**
 * A received datagram or MAD that cannot be accepted: too short, an unknown opcode or attribute, a field
 * with a reserved value, a bad pad count or a wrong ICRC. Receivers drop such packets (rxe does the
 * same silently); the {@link Reason} lets them count drops by cause.
 *
 * <p>Checked, so that every parser call site decides what a bad packet means. It carries no stack trace:
 * garbage from the network is an expected input, not a bug, and building traces for it would make a
 * flood of bad packets expensive.
 */
public final class MalformedPacketException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a packet was refused. */
    public enum Reason {
        /** Shorter than its headers, its declared fields or the bytes the caller said it has. */
        TRUNCATED,
        /** BTH TVer is not 0. */
        BAD_TRANSPORT_VERSION,
        /** The BTH opcode is not one this stack speaks (RC 0x00–0x14, 0x16, 0x17; UD 0x64, 0x65). */
        UNKNOWN_OPCODE,
        /** The transport packet is not a whole number of 4-byte words. */
        UNALIGNED_LENGTH,
        /** PadCnt is larger than the payload area, or non-zero on a FIRST/MIDDLE packet. */
        BAD_PAD,
        /** An opcode that carries no payload (ACK, READ request, atomics) has payload bytes. */
        UNEXPECTED_PAYLOAD,
        /** The invariant CRC does not match the packet. */
        BAD_ICRC,
        /** A MAD with a base version, management class or class version this stack does not speak. */
        UNSUPPORTED_MAD,
        /** A MAD attribute ID this stack does not know. */
        UNKNOWN_ATTRIBUTE,
        /** A field holds a reserved or undefined value (e.g. an unknown reject reason). */
        BAD_FIELD,
        /** A well-formed packet that is not what the caller expected here (e.g. not a QP1 MAD). */
        UNEXPECTED_PACKET
    }

    private final Reason reason;

    /**
     * @param reason the cause class
     * @param detail a short human-readable detail (what was found, what was expected)
     */
    public MalformedPacketException(Reason reason, String detail) {
        super(Objects.requireNonNull(reason, "reason") + ": " + detail, null, false, false);
        this.reason = reason;
    }

    /** The cause class, for drop counters. */
    public Reason reason() {
        return reason;
    }
}
