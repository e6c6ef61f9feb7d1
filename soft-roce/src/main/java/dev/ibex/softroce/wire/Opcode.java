package dev.ibex.softroce.wire;

/**
 * The BTH opcodes this stack speaks, with the extended headers each one carries and where they sit.
 *
 * <p>Offsets are from the start of the BTH; {@link #headerLength()} is the offset of the payload. Header
 * order follows IBTA 9.2: BTH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH. UC, RD, XRC,
 * FLUSH and ATOMIC_WRITE are deliberately absent (see wire.md §6.3); {@link #of(int)} returns
 * {@code null} for them.
 */
public enum Opcode {
    RC_SEND_FIRST(0x00, Operation.SEND, Position.FIRST, 0),
    RC_SEND_MIDDLE(0x01, Operation.SEND, Position.MIDDLE, 0),
    RC_SEND_LAST(0x02, Operation.SEND, Position.LAST, 0),
    RC_SEND_LAST_WITH_IMMEDIATE(0x03, Operation.SEND, Position.LAST, Flags.IMM),
    RC_SEND_ONLY(0x04, Operation.SEND, Position.ONLY, 0),
    RC_SEND_ONLY_WITH_IMMEDIATE(0x05, Operation.SEND, Position.ONLY, Flags.IMM),
    RC_RDMA_WRITE_FIRST(0x06, Operation.RDMA_WRITE, Position.FIRST, Flags.RETH),
    RC_RDMA_WRITE_MIDDLE(0x07, Operation.RDMA_WRITE, Position.MIDDLE, 0),
    RC_RDMA_WRITE_LAST(0x08, Operation.RDMA_WRITE, Position.LAST, 0),
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE(0x09, Operation.RDMA_WRITE, Position.LAST, Flags.IMM),
    RC_RDMA_WRITE_ONLY(0x0A, Operation.RDMA_WRITE, Position.ONLY, Flags.RETH),
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE(0x0B, Operation.RDMA_WRITE, Position.ONLY, Flags.RETH | Flags.IMM),
    RC_RDMA_READ_REQUEST(0x0C, Operation.RDMA_READ_REQUEST, Position.ONLY, Flags.RETH),
    RC_RDMA_READ_RESPONSE_FIRST(0x0D, Operation.RDMA_READ_RESPONSE, Position.FIRST, Flags.AETH),
    RC_RDMA_READ_RESPONSE_MIDDLE(0x0E, Operation.RDMA_READ_RESPONSE, Position.MIDDLE, 0),
    RC_RDMA_READ_RESPONSE_LAST(0x0F, Operation.RDMA_READ_RESPONSE, Position.LAST, Flags.AETH),
    RC_RDMA_READ_RESPONSE_ONLY(0x10, Operation.RDMA_READ_RESPONSE, Position.ONLY, Flags.AETH),
    RC_ACKNOWLEDGE(0x11, Operation.ACKNOWLEDGE, Position.ONLY, Flags.AETH),
    RC_ATOMIC_ACKNOWLEDGE(0x12, Operation.ATOMIC_ACKNOWLEDGE, Position.ONLY, Flags.AETH | Flags.ATOMIC_ACK),
    RC_COMPARE_SWAP(0x13, Operation.COMPARE_SWAP, Position.ONLY, Flags.ATOMIC),
    RC_FETCH_ADD(0x14, Operation.FETCH_ADD, Position.ONLY, Flags.ATOMIC),
    RC_SEND_LAST_WITH_INVALIDATE(0x16, Operation.SEND, Position.LAST, Flags.IETH),
    RC_SEND_ONLY_WITH_INVALIDATE(0x17, Operation.SEND, Position.ONLY, Flags.IETH),
    UD_SEND_ONLY(0x64, Operation.SEND, Position.ONLY, Flags.DETH),
    UD_SEND_ONLY_WITH_IMMEDIATE(0x65, Operation.SEND, Position.ONLY, Flags.DETH | Flags.IMM);

    /** Service type, from opcode bits 7..5. */
    public enum Transport { RC, UD }

    /** What a packet does. */
    public enum Operation {
        SEND, RDMA_WRITE, RDMA_READ_REQUEST, RDMA_READ_RESPONSE, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE,
        COMPARE_SWAP, FETCH_ADD
    }

    /** Where a packet sits in its message. ONLY is both first and last. */
    public enum Position {
        FIRST, MIDDLE, LAST, ONLY;

        /** The position of a packet that is (or is not) the first and (or not) the last of its message. */
        public static Position of(boolean first, boolean last) {
            return first ? (last ? ONLY : FIRST) : (last ? LAST : MIDDLE);
        }

        /** FIRST or ONLY. */
        public boolean isFirst() {
            return this == FIRST || this == ONLY;
        }

        /** LAST or ONLY. */
        public boolean isLast() {
            return this == LAST || this == ONLY;
        }
    }

    private static final class Flags {
        static final int DETH = 1, RETH = 2, ATOMIC = 4, AETH = 8, ATOMIC_ACK = 16, IMM = 32, IETH = 64;
    }

    private static final Opcode[] BY_CODE = new Opcode[256];

    static {
        for (Opcode op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    private final int code;
    private final Operation operation;
    private final Position position;
    private final int flags;
    private final byte dethOffset, rethOffset, atomicEthOffset, aethOffset, atomicAckEthOffset, immDtOffset,
            iethOffset, headerLength;

    Opcode(int code, Operation operation, Position position, int flags) {
        this.code = code;
        this.operation = operation;
        this.position = position;
        this.flags = flags;
        int off = Bth.SIZE;
        dethOffset = (byte) ((flags & Flags.DETH) != 0 ? off : -1);
        off += (flags & Flags.DETH) != 0 ? Deth.SIZE : 0;
        rethOffset = (byte) ((flags & Flags.RETH) != 0 ? off : -1);
        off += (flags & Flags.RETH) != 0 ? Reth.SIZE : 0;
        atomicEthOffset = (byte) ((flags & Flags.ATOMIC) != 0 ? off : -1);
        off += (flags & Flags.ATOMIC) != 0 ? AtomicEth.SIZE : 0;
        aethOffset = (byte) ((flags & Flags.AETH) != 0 ? off : -1);
        off += (flags & Flags.AETH) != 0 ? Aeth.SIZE : 0;
        atomicAckEthOffset = (byte) ((flags & Flags.ATOMIC_ACK) != 0 ? off : -1);
        off += (flags & Flags.ATOMIC_ACK) != 0 ? AtomicAckEth.SIZE : 0;
        immDtOffset = (byte) ((flags & Flags.IMM) != 0 ? off : -1);
        off += (flags & Flags.IMM) != 0 ? ImmDt.SIZE : 0;
        iethOffset = (byte) ((flags & Flags.IETH) != 0 ? off : -1);
        off += (flags & Flags.IETH) != 0 ? Ieth.SIZE : 0;
        headerLength = (byte) off;
    }

    /** The opcode with this 8-bit code, or {@code null} if this stack does not speak it. */
    public static Opcode of(int code) {
        return (code & ~0xFF) == 0 ? BY_CODE[code] : null;
    }

    /** The 8-bit BTH opcode value. */
    public int code() {
        return code;
    }

    /** RC or UD. */
    public Transport transport() {
        return code < 0x20 ? Transport.RC : Transport.UD;
    }

    /** What the packet does. */
    public Operation operation() {
        return operation;
    }

    /** FIRST, MIDDLE, LAST or ONLY. Single-packet operations (ACK, READ request, atomics, UD) are ONLY. */
    public Position position() {
        return position;
    }

    /** Length of BTH plus extended headers, i.e. the payload's offset from the BTH. */
    public int headerLength() {
        return headerLength;
    }

    /** Whether packets with this opcode may carry payload bytes. */
    public boolean carriesPayload() {
        return switch (operation) {
            case SEND, RDMA_WRITE, RDMA_READ_RESPONSE -> true;
            default -> false;
        };
    }

    /** Whether a requester sends it (as opposed to a responder's ACK or read/atomic response). */
    public boolean isRequest() {
        return switch (operation) {
            case RDMA_READ_RESPONSE, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE -> false;
            default -> true;
        };
    }

    /** Whether a responder sends it (read response, ACK/NAK, atomic acknowledge). */
    public boolean isResponse() {
        return !isRequest();
    }

    /** Whether this opcode carries a DETH. */
    public boolean hasDeth() {
        return dethOffset >= 0;
    }

    /** Whether this opcode carries a RETH. */
    public boolean hasReth() {
        return rethOffset >= 0;
    }

    /** Whether this opcode carries an AtomicETH. */
    public boolean hasAtomicEth() {
        return atomicEthOffset >= 0;
    }

    /** Whether this opcode carries an AETH. */
    public boolean hasAeth() {
        return aethOffset >= 0;
    }

    /** Whether this opcode carries an AtomicAckETH. */
    public boolean hasAtomicAckEth() {
        return atomicAckEthOffset >= 0;
    }

    /** Whether this opcode carries immediate data. */
    public boolean hasImmDt() {
        return immDtOffset >= 0;
    }

    /** Whether this opcode carries an IETH (send with invalidate). */
    public boolean hasIeth() {
        return iethOffset >= 0;
    }

    /** Offset of the DETH from the BTH, or -1. */
    public int dethOffset() {
        return dethOffset;
    }

    /** Offset of the RETH from the BTH, or -1. */
    public int rethOffset() {
        return rethOffset;
    }

    /** Offset of the AtomicETH from the BTH, or -1. */
    public int atomicEthOffset() {
        return atomicEthOffset;
    }

    /** Offset of the AETH from the BTH, or -1. */
    public int aethOffset() {
        return aethOffset;
    }

    /** Offset of the AtomicAckETH from the BTH, or -1. */
    public int atomicAckEthOffset() {
        return atomicAckEthOffset;
    }

    /** Offset of the ImmDt from the BTH, or -1. */
    public int immDtOffset() {
        return immDtOffset;
    }

    /** Offset of the IETH from the BTH, or -1. */
    public int iethOffset() {
        return iethOffset;
    }

    /**
     * The RC SEND opcode for a packet at {@code position}; {@code immediate} and {@code invalidate} only
     * matter on LAST/ONLY packets and are mutually exclusive.
     */
    public static Opcode rcSend(Position position, boolean immediate, boolean invalidate) {
        if (immediate && invalidate) {
            throw new IllegalArgumentException("a SEND carries immediate data or an invalidate R_Key, not both");
        }
        return switch (position) {
            case FIRST -> RC_SEND_FIRST;
            case MIDDLE -> RC_SEND_MIDDLE;
            case LAST -> immediate ? RC_SEND_LAST_WITH_IMMEDIATE
                    : invalidate ? RC_SEND_LAST_WITH_INVALIDATE : RC_SEND_LAST;
            case ONLY -> immediate ? RC_SEND_ONLY_WITH_IMMEDIATE
                    : invalidate ? RC_SEND_ONLY_WITH_INVALIDATE : RC_SEND_ONLY;
        };
    }

    /** The RC RDMA WRITE opcode for a packet at {@code position}; {@code immediate} matters on LAST/ONLY. */
    public static Opcode rcWrite(Position position, boolean immediate) {
        return switch (position) {
            case FIRST -> RC_RDMA_WRITE_FIRST;
            case MIDDLE -> RC_RDMA_WRITE_MIDDLE;
            case LAST -> immediate ? RC_RDMA_WRITE_LAST_WITH_IMMEDIATE : RC_RDMA_WRITE_LAST;
            case ONLY -> immediate ? RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE : RC_RDMA_WRITE_ONLY;
        };
    }

    /** The RDMA READ response opcode for a packet at {@code position}. */
    public static Opcode rcReadResponse(Position position) {
        return switch (position) {
            case FIRST -> RC_RDMA_READ_RESPONSE_FIRST;
            case MIDDLE -> RC_RDMA_READ_RESPONSE_MIDDLE;
            case LAST -> RC_RDMA_READ_RESPONSE_LAST;
            case ONLY -> RC_RDMA_READ_RESPONSE_ONLY;
        };
    }

    /** The UD SEND opcode, with or without immediate data. */
    public static Opcode udSend(boolean immediate) {
        return immediate ? UD_SEND_ONLY_WITH_IMMEDIATE : UD_SEND_ONLY;
    }
}
