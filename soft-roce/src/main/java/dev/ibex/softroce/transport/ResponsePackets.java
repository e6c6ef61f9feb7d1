package dev.ibex.softroce.transport;

import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The packets a {@link Responder} sends, as rxe's {@code resp.c} builds them in {@code send_ack}, {@code
 * send_atomic_ack} and {@code read_reply}: ACKs and NAKs, atomic ACKs and READ responses, each built in one packet
 * buffer and sent on the QP's current primary path with its MigReq bit (responses carry it too). The buffer is made
 * on first use: a QP that never responds (a sender only) never holds these 4 KiB.
 *
 * <p>Confined to the responder's task, like the responder; allocates nothing after the first packet.
 */
final class ResponsePackets {
    /** An ACK's syndrome with unlimited credits (an SRQ or a responder that does not count them). */
    static final int ACK_UNLIMITED = Aeth.ack(Aeth.CREDITS_UNLIMITED);

    private final SoftQueuePair qp;
    private final PacketBuilder builder = new PacketBuilder();
    private ByteBuffer txBuffer;
    private MemorySegment tx;

    ResponsePackets(SoftQueuePair qp) {
        this.qp = qp;
    }

    /** Sends an ACK, RNR NAK or NAK ({@code syndrome}) for {@code ackedPsn} with the message sequence number. */
    void ack(int syndrome, int ackedPsn, int msn) {
        builder.begin(tx(), 0, Opcode.RC_ACKNOWLEDGE).destQp(qp.destQpn()).psn(ackedPsn).aeth(syndrome, msn);
        send(qp.paths().current());
    }

    /** Sends the atomic ACK of the atomic at {@code ackedPsn}: the value the target held before ({@code original}). */
    void atomicAck(int ackedPsn, int msn, long original) {
        builder.begin(tx(), 0, Opcode.RC_ATOMIC_ACKNOWLEDGE).destQp(qp.destQpn()).psn(ackedPsn)
                .aeth(ACK_UNLIMITED, msn).atomicAckEth(original);
        send(qp.paths().current());
    }

    /**
     * Begins a READ response packet ({@code op}: first, middle, last or only) at {@code psn}; the caller copies its
     * payload into {@link #buffer()} at the builder's payload offset, sets the payload length and {@link #send sends}.
     */
    PacketBuilder beginReadResponse(Opcode op, int psn, int msn) {
        builder.begin(tx(), 0, op).destQp(qp.destQpn()).psn(psn);
        if (op.hasAeth()) {
            builder.aeth(ACK_UNLIMITED, msn);
        }
        return builder;
    }

    /** The packet buffer the packet begun last is built in. */
    MemorySegment buffer() {
        return tx;
    }

    /** Sends the packet built on {@code paths}' primary route with their MigReq bit. */
    void send(PathMigration.Paths paths) {
        builder.migReq(paths.migReq());
        Route route = paths.route();
        int port = route.link().port();
        int len = builder.finishIpv4(route.srcIp(), route.dstIp(), port, port);
        txBuffer.clear().limit(len);
        route.link().send(txBuffer, route.dstIp(), route.destination());
    }

    private MemorySegment tx() {
        MemorySegment t = tx;
        if (t == null) {
            txBuffer = ByteBuffer.allocateDirect(Sender.MAX_PACKET);
            t = tx = MemorySegment.ofBuffer(txBuffer);
        }
        return t;
    }
}
