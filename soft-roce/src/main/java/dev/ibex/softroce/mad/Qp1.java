package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.Bth;
import dev.ibex.softroce.wire.Deth;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;

/**
 * RoCEv2 framing of MADs on QP1 (the GSI): a UD SEND_ONLY to DestQP 1, P_Key 0xFFFF, DETH Q_Key
 * 0x80010000 and source QP 1, followed by the 256-byte MAD and the ICRC — a 280-byte UDP payload.
 * Replies go to the sender's QP1 at the datagram's source address.
 */
public final class Qp1 {
    /** QP number of the GSI. */
    public static final int QPN = Bth.GSI_QPN;
    /** Q_Key every GSI packet carries. */
    public static final int QKEY = Deth.GSI_QKEY;
    /** Offset of the MAD in the UDP payload (BTH 12 + DETH 8). */
    public static final int MAD_OFFSET = Bth.SIZE + Deth.SIZE;
    /** UDP payload length of a QP1 MAD packet. */
    public static final int PACKET_SIZE = MAD_OFFSET + MadHeader.MAD_SIZE + 4;

    private Qp1() {
    }

    /**
     * Writes a QP1 packet carrying {@code mad} at {@code offset} of {@code s} and returns its length
     * ({@value #PACKET_SIZE}).
     */
    public static int encode(PacketBuilder builder, MemorySegment s, long offset, int psn, CmMad mad, int srcIp,
            int dstIp, int srcPort, int dstPort) {
        builder.begin(s, offset, Opcode.UD_SEND_ONLY).destQp(QPN).psn(psn).deth(QKEY, QPN);
        mad.encode(s, builder.payloadOffset());
        return builder.payloadLength(MadHeader.MAD_SIZE).finishIpv4(srcIp, dstIp, srcPort, dstPort);
    }

    /** Whether a parsed packet is addressed to QP1 (so its payload should be a MAD). */
    public static boolean isQp1(RocePacket packet) {
        return packet.opcode() == Opcode.UD_SEND_ONLY && packet.destQp() == QPN;
    }

    /**
     * Decodes the CM MAD of a parsed QP1 packet; refuses packets that are not UD SEND_ONLY to QP1 with the
     * GSI Q_Key or whose payload is not one MAD.
     */
    public static CmMad decode(RocePacket packet) throws MalformedPacketException {
        if (!isQp1(packet)) {
            throw new MalformedPacketException(Reason.UNEXPECTED_PACKET, packet + " is not a QP1 MAD");
        }
        if (packet.dethQKey() != QKEY) {
            throw new MalformedPacketException(Reason.UNEXPECTED_PACKET,
                    "QP1 packet with Q_Key 0x" + Integer.toHexString(packet.dethQKey()));
        }
        if (packet.payloadLength() != MadHeader.MAD_SIZE) {
            throw new MalformedPacketException(Reason.TRUNCATED,
                    "QP1 payload of " + packet.payloadLength() + " bytes is not one 256-byte MAD");
        }
        return CmMad.decode(packet.segment(), packet.payloadOffset());
    }
}
