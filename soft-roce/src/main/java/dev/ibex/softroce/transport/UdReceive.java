package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.softroce.wire.Grh;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;

/**
 * The responder's UD receive (rxe_resp.c on a UD QP): the Q_Key checked (a mismatch is dropped), the 40-byte GRH
 * written at the start of the receive buffer, then the payload; no receive posted or a buffer too small drops the
 * datagram (an SRQ's receive completes with LOC_LEN_ERR), every drop counted by reason.
 *
 * <p>Threading: the QP's receive task only (as {@link Responder}).
 */
final class UdReceive {
    private final SoftQueuePair qp;
    private final ResponderReceive receive;
    /** Raises COMM_EST on the first datagram received in RTR (the responder's, shared with RC). */
    private final Runnable established;
    private final MemorySegment grh = MemorySegment.ofArray(new byte[Grh.LENGTH]);
    private long badQkey;
    private long noReceive;
    private long tooLong;

    UdReceive(SoftQueuePair qp, ResponderReceive receive, Runnable established) {
        this.qp = qp;
        this.receive = receive;
        this.established = established;
    }

    /** Datagrams dropped on arrival, by reason (racy snapshot). */
    DatagramDrops drops() {
        return new DatagramDrops(badQkey, noReceive, tooLong);
    }

    /** A UD SEND for this QP arrived from {@code srcIp} at {@code dstIp}. */
    void onDatagram(RocePacket pkt, int srcIp, int dstIp) {
        if (pkt.dethQKey() != qp.qkey()) {
            badQkey++; // Q_Key violation: dropped, as a NIC does — but counted
            qp.countReceiveDrops(1);
            return;
        }
        if (!receive.take()) {
            noReceive++; // UD: no receive posted, the datagram is lost (counted)
            qp.countReceiveDrops(1);
            return;
        }
        int payload = pkt.payloadLength();
        if (payload + (long) Grh.LENGTH > receive.capacity()) {
            tooLong++;
            if (qp.softSrq() != null) {
                receive.complete(WcOpcode.RECV, 0, 0, 0, 0, WcStatus.LOC_LEN_ERR.code(), false);
            } else {
                receive.drop(); // class D: drop the message, keep the receive
                qp.countReceiveDrops(1);
            }
            return;
        }
        Grh.writeIpv4(grh, pkt.length(), srcIp, dstIp);
        int r = receive.scatter(grh, 0, Grh.LENGTH);
        if (r == Dma.OK) {
            r = receive.scatter(pkt.segment(), pkt.payloadOffset(), payload);
        }
        if (r != Dma.OK) {
            receive.complete(WcOpcode.RECV, 0, 0, 0, 0, WcStatus.LOC_PROT_ERR.code(), false);
            qp.error();
            return;
        }
        boolean imm = pkt.opcode().hasImmDt();
        long wrId = receive.consume();
        established.run();
        qp.recvCqSoft().complete(wrId, 0, WcOpcode.RECV, payload + Grh.LENGTH, qp.qpNum(),
                WcFlags.GRH | (imm ? WcFlags.WITH_IMM : 0), imm ? pkt.immediate() : 0, pkt.dethSrcQp(),
                pkt.solicitedEvent());
    }
}
