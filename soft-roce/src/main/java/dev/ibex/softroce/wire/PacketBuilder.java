package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Writes one RoCEv2 UDP payload — BTH, the opcode's extended headers, payload, pad and ICRC — into a
 * segment. A reusable, single-thread object: {@link #begin} starts a packet, the setters fill fields,
 * {@link #finishIpv4} writes pad count, pad and ICRC and returns the datagram length. Nothing is
 * allocated per packet.
 *
 * <pre>{@code
 * int len = builder.begin(buf, 0, Opcode.RC_RDMA_WRITE_ONLY)
 *         .destQp(peerQpn).psn(psn).ackReq(true)
 *         .reth(va, rkey, length)
 *         .payload(mr, offset, length)
 *         .finishIpv4(localIp, peerIp, port, port);
 * }</pre>
 *
 * <p>{@code begin} zeroes the header area and sets P_Key 0xFFFF and TVer 0. Setting a header the opcode
 * does not carry, or payload on an opcode without payload, throws {@link IllegalStateException}; values
 * wider than their field or a payload that does not fit throw {@link IllegalArgumentException}.
 */
public final class PacketBuilder {
    private final Icrc icrc = new Icrc();
    private MemorySegment segment;
    private long base;
    private Opcode opcode;
    private int payloadLength;

    /** Starts a packet with {@code opcode} at {@code offset} of {@code segment}. */
    public PacketBuilder begin(MemorySegment segment, long offset, Opcode opcode) {
        int header = opcode.headerLength();
        if (offset < 0 || segment.byteSize() - offset < header + Icrc.SIZE) {
            throw new IllegalArgumentException("no room for a " + opcode + " packet at offset " + offset
                    + " of a " + segment.byteSize() + "-byte segment");
        }
        for (int i = 0; i < header; i += 4) { // header lengths are multiples of 4
            NetworkOrder.u32(segment, offset + i, 0);
        }
        Bth.opcode(segment, offset, opcode.code());
        Bth.pKey(segment, offset, Bth.DEFAULT_PKEY);
        this.segment = segment;
        this.base = offset;
        this.opcode = opcode;
        this.payloadLength = 0;
        return this;
    }

    // ---- BTH ----------------------------------------------------------------------------------------

    public PacketBuilder destQp(int qpn) {
        Bth.destQp(segment, requireBegun(), qpn);
        return this;
    }

    public PacketBuilder psn(int psn) {
        Bth.psn(segment, requireBegun(), psn);
        return this;
    }

    public PacketBuilder ackReq(boolean ackReq) {
        Bth.ackReq(segment, requireBegun(), ackReq);
        return this;
    }

    public PacketBuilder solicitedEvent(boolean se) {
        Bth.solicitedEvent(segment, requireBegun(), se);
        return this;
    }

    public PacketBuilder migReq(boolean migReq) {
        Bth.migReq(segment, requireBegun(), migReq);
        return this;
    }

    /** P_Key; {@link #begin} sets the default 0xFFFF. */
    public PacketBuilder pKey(int pKey) {
        Bth.pKey(segment, requireBegun(), pKey);
        return this;
    }

    /** FECN/BECN congestion bits (never set by this stack's transport; here for completeness and tests). */
    public PacketBuilder congestion(boolean fecn, boolean becn) {
        Bth.fecn(segment, requireBegun(), fecn);
        Bth.becn(segment, base, becn);
        return this;
    }

    // ---- extended headers ----------------------------------------------------------------------------

    public PacketBuilder reth(long virtualAddress, int rKey, int dmaLength) {
        Reth.write(segment, header(opcode().rethOffset(), "RETH"), virtualAddress, rKey, dmaLength);
        return this;
    }

    /** AETH; build the syndrome with {@link Aeth#ack}, {@link Aeth#rnrNak} or {@link Aeth#nak}. */
    public PacketBuilder aeth(int syndrome, int msn) {
        long o = header(opcode().aethOffset(), "AETH");
        Aeth.syndrome(segment, o, syndrome);
        Aeth.msn(segment, o, msn);
        return this;
    }

    public PacketBuilder atomicEth(long virtualAddress, int rKey, long swapOrAdd, long compare) {
        AtomicEth.write(segment, header(opcode().atomicEthOffset(), "AtomicETH"), virtualAddress, rKey, swapOrAdd,
                compare);
        return this;
    }

    public PacketBuilder atomicAckEth(long originalData) {
        AtomicAckEth.originalData(segment, header(opcode().atomicAckEthOffset(), "AtomicAckETH"), originalData);
        return this;
    }

    /** Immediate data as a big-endian int (the four bytes go on the wire in that order). */
    public PacketBuilder immediate(int immediate) {
        ImmDt.immediate(segment, header(opcode().immDtOffset(), "ImmDt"), immediate);
        return this;
    }

    public PacketBuilder ieth(int rKey) {
        Ieth.rKey(segment, header(opcode().iethOffset(), "IETH"), rKey);
        return this;
    }

    public PacketBuilder deth(int qKey, int srcQp) {
        long o = header(opcode().dethOffset(), "DETH");
        Deth.qKey(segment, o, qKey);
        Deth.srcQp(segment, o, srcQp);
        return this;
    }

    // ---- payload -------------------------------------------------------------------------------------

    /** Where the payload goes in the segment, for callers that write it in place. */
    public long payloadOffset() {
        return base + opcode().headerLength();
    }

    /** The largest payload that fits in the segment after the headers (leaving room for pad and ICRC). */
    public int maxPayload() {
        long room = segment.byteSize() - payloadOffset() - Icrc.SIZE - 3;
        return (int) Math.max(0, Math.min(room, Integer.MAX_VALUE - 64));
    }

    /** Copies {@code length} bytes from {@code source} at {@code sourceOffset} as the payload. */
    public PacketBuilder payload(MemorySegment source, long sourceOffset, int length) {
        payloadLength(length);
        MemorySegment.copy(source, sourceOffset, segment, payloadOffset(), length);
        return this;
    }

    /** Copies {@code bytes} as the payload. */
    public PacketBuilder payload(byte[] bytes) {
        payloadLength(bytes.length);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, payloadOffset(), bytes.length);
        return this;
    }

    /** Declares a payload of {@code length} bytes that the caller wrote (or will write) at {@link #payloadOffset()}. */
    public PacketBuilder payloadLength(int length) {
        Opcode op = opcode();
        if (length != 0 && !op.carriesPayload()) {
            throw new IllegalStateException(op + " carries no payload");
        }
        if (length < 0 || length > maxPayload()) {
            throw new IllegalArgumentException("payload of " + length + " bytes does not fit (room for "
                    + maxPayload() + ")");
        }
        this.payloadLength = length;
        return this;
    }

    // ---- finish --------------------------------------------------------------------------------------

    /**
     * Writes PadCnt, the zero pad and the ICRC for a datagram from {@code srcIp:srcPort} to
     * {@code dstIp:dstPort}, ends the packet and returns the UDP payload length.
     */
    public int finishIpv4(int srcIp, int dstIp, int srcPort, int dstPort) {
        Opcode op = opcode();
        int pad = Padding.count(payloadLength);
        if (pad != 0 && !op.position().isLast()) {
            throw new IllegalStateException(op + " is not the last packet of its message: its payload of "
                    + payloadLength + " bytes must be a multiple of 4 (a whole MTU)");
        }
        Bth.padCount(segment, base, pad);
        long padAt = payloadOffset() + payloadLength;
        for (int i = 0; i < pad; i++) {
            segment.set(ValueLayout.JAVA_BYTE, padAt + i, (byte) 0);
        }
        int length = op.headerLength() + payloadLength + pad + Icrc.SIZE;
        icrc.writeIpv4(srcIp, dstIp, srcPort, dstPort, segment, base, length);
        this.opcode = null;
        return length;
    }

    private Opcode opcode() {
        Opcode op = opcode;
        if (op == null) {
            throw new IllegalStateException("no packet begun");
        }
        return op;
    }

    private long requireBegun() {
        opcode();
        return base;
    }

    private long header(int relative, String name) {
        if (relative < 0) {
            throw new IllegalStateException(opcode + " carries no " + name);
        }
        return base + relative;
    }
}
