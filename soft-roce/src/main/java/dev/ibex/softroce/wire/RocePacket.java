package dev.ibex.softroce.wire;

import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import java.lang.foreign.MemorySegment;

/**
 * A received RoCEv2 UDP payload, validated once and then read in place: a reusable flyweight with no
 * allocation per packet. One instance per receiving thread; {@link #wrap} re-targets it.
 *
 * <p>{@link #wrap} checks the structure (length, TVer, known opcode, 4-byte alignment, pad, payload
 * only where the opcode allows it); {@link #parseIpv4} additionally checks the ICRC under the convention
 * of {@link Icrc}. Garbage only ever produces {@link MalformedPacketException}. Accessors of an extended
 * header the opcode does not carry throw {@link IllegalStateException} — a caller bug, not bad input.
 */
public final class RocePacket {
    private final Icrc icrc = new Icrc();
    private MemorySegment segment;
    private long base;
    private int length;
    private Opcode opcode;
    private int payloadLength;

    /**
     * Validates the UDP payload at {@code [offset, offset + length)} of {@code segment} and targets this
     * flyweight at it. The ICRC is not checked; see {@link #parseIpv4}.
     */
    public RocePacket wrap(MemorySegment segment, long offset, int length) throws MalformedPacketException {
        this.opcode = null;
        if (length < Bth.SIZE + Icrc.SIZE) {
            throw new MalformedPacketException(Reason.TRUNCATED,
                    length + " bytes cannot hold a BTH and an ICRC (16 bytes)");
        }
        if (offset < 0 || offset > segment.byteSize() - length) {
            throw new MalformedPacketException(Reason.TRUNCATED,
                    length + " bytes at offset " + offset + " overrun a segment of " + segment.byteSize());
        }
        int tver = Bth.transportVersion(segment, offset);
        if (tver != 0) {
            throw new MalformedPacketException(Reason.BAD_TRANSPORT_VERSION, "TVer " + tver);
        }
        int code = Bth.opcode(segment, offset);
        Opcode op = Opcode.of(code);
        if (op == null) {
            throw new MalformedPacketException(Reason.UNKNOWN_OPCODE, "opcode 0x" + Integer.toHexString(code));
        }
        if (length < op.headerLength() + Icrc.SIZE) {
            throw new MalformedPacketException(Reason.TRUNCATED,
                    op + " needs " + (op.headerLength() + Icrc.SIZE) + " bytes, got " + length);
        }
        if ((length & 3) != 0) {
            throw new MalformedPacketException(Reason.UNALIGNED_LENGTH, length + " bytes is not a multiple of 4");
        }
        int area = length - op.headerLength() - Icrc.SIZE;
        int pad = Bth.padCount(segment, offset);
        if (!op.carriesPayload() && area != 0) {
            throw new MalformedPacketException(Reason.UNEXPECTED_PAYLOAD, op + " with " + area + " payload bytes");
        }
        if (pad > area || (pad != 0 && !op.position().isLast())) {
            throw new MalformedPacketException(Reason.BAD_PAD, "PadCnt " + pad + " on " + op + " with " + area
                    + " payload+pad bytes");
        }
        this.segment = segment;
        this.base = offset;
        this.length = length;
        this.payloadLength = area - pad;
        this.opcode = op;
        return this;
    }

    /**
     * {@link #wrap} plus an ICRC check for a datagram received from {@code srcIp:srcPort} on
     * {@code dstIp:dstPort} (the local address, or the multicast group it was sent to).
     */
    public RocePacket parseIpv4(MemorySegment segment, long offset, int length, int srcIp, int dstIp, int srcPort,
            int dstPort) throws MalformedPacketException {
        wrap(segment, offset, length);
        verifyIcrcIpv4(srcIp, dstIp, srcPort, dstPort);
        return this;
    }

    /** Checks the ICRC of the wrapped packet; see {@link Icrc} for the convention. */
    public void verifyIcrcIpv4(int srcIp, int dstIp, int srcPort, int dstPort) throws MalformedPacketException {
        requireWrapped();
        int computed = icrc.ipv4(srcIp, dstIp, srcPort, dstPort, segment, base, length);
        int stored = Icrc.stored(segment, base, length);
        if (computed != stored) {
            opcode = null;
            throw new MalformedPacketException(Reason.BAD_ICRC, "ICRC 0x" + Integer.toHexString(stored)
                    + ", computed 0x" + Integer.toHexString(computed));
        }
    }

    // ---- the datagram ------------------------------------------------------------------------------

    /** The segment holding the packet. */
    public MemorySegment segment() {
        return segment;
    }

    /** Offset of the BTH (the UDP payload) in {@link #segment()}. */
    public long offset() {
        return base;
    }

    /** Length of the UDP payload (headers, payload, pad and ICRC). */
    public int length() {
        return length;
    }

    /** The opcode; {@code null} before a successful {@link #wrap}. */
    public Opcode opcode() {
        return opcode;
    }

    /** Offset of the payload in {@link #segment()}. */
    public long payloadOffset() {
        return base + requireWrapped().headerLength();
    }

    /** Payload bytes, excluding pad and ICRC. */
    public int payloadLength() {
        requireWrapped();
        return payloadLength;
    }

    /** The stored ICRC value. */
    public int icrc() {
        requireWrapped();
        return Icrc.stored(segment, base, length);
    }

    // ---- BTH ----------------------------------------------------------------------------------------

    public boolean solicitedEvent() {
        return Bth.solicitedEvent(segment, base);
    }

    public boolean migReq() {
        return Bth.migReq(segment, base);
    }

    public int padCount() {
        return Bth.padCount(segment, base);
    }

    public int transportVersion() {
        return Bth.transportVersion(segment, base);
    }

    public int pKey() {
        return Bth.pKey(segment, base);
    }

    public boolean fecn() {
        return Bth.fecn(segment, base);
    }

    public boolean becn() {
        return Bth.becn(segment, base);
    }

    public int destQp() {
        return Bth.destQp(segment, base);
    }

    public boolean ackReq() {
        return Bth.ackReq(segment, base);
    }

    public int psn() {
        return Bth.psn(segment, base);
    }

    // ---- extended headers --------------------------------------------------------------------------

    public long rethVirtualAddress() {
        return Reth.virtualAddress(segment, header(requireWrapped().rethOffset(), "RETH"));
    }

    public int rethRKey() {
        return Reth.rKey(segment, header(requireWrapped().rethOffset(), "RETH"));
    }

    /** DMA length, unsigned 32 bits. */
    public int rethDmaLength() {
        return Reth.dmaLength(segment, header(requireWrapped().rethOffset(), "RETH"));
    }

    public int aethSyndrome() {
        return Aeth.syndrome(segment, header(requireWrapped().aethOffset(), "AETH"));
    }

    public int aethMsn() {
        return Aeth.msn(segment, header(requireWrapped().aethOffset(), "AETH"));
    }

    public long atomicVirtualAddress() {
        return AtomicEth.virtualAddress(segment, header(requireWrapped().atomicEthOffset(), "AtomicETH"));
    }

    public int atomicRKey() {
        return AtomicEth.rKey(segment, header(requireWrapped().atomicEthOffset(), "AtomicETH"));
    }

    public long atomicSwapOrAdd() {
        return AtomicEth.swapOrAdd(segment, header(requireWrapped().atomicEthOffset(), "AtomicETH"));
    }

    public long atomicCompare() {
        return AtomicEth.compare(segment, header(requireWrapped().atomicEthOffset(), "AtomicETH"));
    }

    public long atomicAckOriginalData() {
        return AtomicAckEth.originalData(segment, header(requireWrapped().atomicAckEthOffset(), "AtomicAckETH"));
    }

    /** Immediate data, the four bytes as a big-endian int. */
    public int immediate() {
        return ImmDt.immediate(segment, header(requireWrapped().immDtOffset(), "ImmDt"));
    }

    public int iethRKey() {
        return Ieth.rKey(segment, header(requireWrapped().iethOffset(), "IETH"));
    }

    public int dethQKey() {
        return Deth.qKey(segment, header(requireWrapped().dethOffset(), "DETH"));
    }

    public int dethSrcQp() {
        return Deth.srcQp(segment, header(requireWrapped().dethOffset(), "DETH"));
    }

    private long header(int relative, String name) {
        if (relative < 0) {
            throw new IllegalStateException(opcode + " carries no " + name);
        }
        return base + relative;
    }

    private Opcode requireWrapped() {
        Opcode op = opcode;
        if (op == null) {
            throw new IllegalStateException("no packet wrapped");
        }
        return op;
    }

    @Override
    public String toString() {
        if (opcode == null) {
            return "RocePacket[none]";
        }
        return "RocePacket[" + opcode + " dqp=0x" + Integer.toHexString(destQp()) + " psn=0x"
                + Integer.toHexString(psn()) + " payload=" + payloadLength + "]";
    }
}
