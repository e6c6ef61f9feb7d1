package dev.ibex.bench.fuzz;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.softroce.cm.IbCmId;
import dev.ibex.softroce.cm.SoftCmId;
import dev.ibex.softroce.transport.SoftQueuePair;
import dev.ibex.softroce.wire.Ipv4;

/**
 * One end of a live connection as a forger needs it, read just before a packet is built: its QP, addresses, the
 * request PSN its responder expects next, the PSN its requester sends next, and the CM's communication IDs. The PSNs
 * only move forward, so a PSN picked well ahead of or behind these stays so while the packet travels.
 *
 * @param qp the victim's QP
 * @param localIp the victim's address
 * @param peerIp the address of the other end
 * @param port the fabric's UDP port (every device sends from it)
 * @param mtu the path MTU in bytes
 * @param rqPsn the request PSN the victim's responder expects next
 * @param sqPsn the PSN the victim's requester sends next (responses must be older)
 * @param localCommId the victim's IB CM communication ID
 * @param remoteCommId the peer's IB CM communication ID
 */
record Victim(SoftQueuePair qp, int localIp, int peerIp, int port, int mtu, int rqPsn, int sqPsn, int localCommId,
        int remoteCommId) {

    /** The victim end of {@code c} now, or {@code null} when it has no live soft-roce QP. */
    static Victim of(Connection c, int port) {
        if (c == null || !(c.qp() instanceof SoftQueuePair qp) || !(c.cmId() instanceof SoftCmId id)) {
            return null;
        }
        try {
            QpAttr a = qp.query(QpAttr.RQ_PSN | QpAttr.SQ_PSN);
            IbCmId ib = id.ibCmId();
            return new Victim(qp, Ipv4.toInt(c.localAddress().getAddress()),
                    Ipv4.toInt(c.remoteAddress().getAddress()), port, qp.mtuBytes(), a.rqPsn(), a.sqPsn(),
                    ib == null ? 0 : ib.localId(), ib == null ? 0 : ib.remoteId());
        } catch (RuntimeException closed) {
            return null;
        }
    }

    int qpn() {
        return qp.qpNum();
    }
}
