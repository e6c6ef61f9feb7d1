package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.PathRecord;
import dev.ibex.softroce.mad.CmMessageKind;
import dev.ibex.softroce.mad.CmMra;
import dev.ibex.softroce.mad.CmPath;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmSidrRep;
import dev.ibex.softroce.mad.CmSidrReq;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;

/**
 * The MADs an IB CM id formats from its state, as the kernel's {@code cm_format_*} do: REQ (the consumer's
 * parameters recorded into the id first, as {@code ib_send_cm_req} does), REP, REJ, MRA, SIDR_REQ and SIDR_REP,
 * with the TIDs of wire.md §2.1; and what the peer's REP tells the id (what the kernel's {@code cm_rep_handler}
 * keeps). Requests that wait for an answer go out through the id's {@link IbCmTimers}.
 *
 * <p>Threading: under the CM's lock.
 */
final class IbCmMads {
    private IbCmMads() {}

    /** {@code ib_send_cm_req}: records the parameters and the path, then sends the REQ until it is answered. */
    static void sendReq(IbCmId id, IbCmReqParam p, IbCmState to) {
        IbCm cm = id.cm();
        CmTimings timings = cm.timings;
        PathRecord path = p.path();
        id.port = p.port();
        id.remoteAddress = p.destination();
        id.serviceId = p.serviceId();
        id.path = path;
        id.localQpn = p.qpn();
        id.rqPsn = p.startingPsn();
        id.responderResources = p.responderResources();
        id.initiatorDepth = p.initiatorDepth();
        id.retryCount = p.retryCount();
        id.rnrRetryCount = p.rnrRetryCount();
        id.pathMtu = path.mtu();
        id.pkey = path.pkey();
        id.maxCmRetries = timings.maxCmRetries();
        id.avTimeout = path.packetLifeTime() + 1;
        id.responseTimeoutMs = 2 * CmTimings.toMillis(path.packetLifeTime())
                + CmTimings.toMillis(timings.cmResponseTimeout());
        id.tid = cm.formTid(id.port, id.localId);
        boolean global = path.hopLimit() > 1;
        // RoCE: hop limit 64 > 1, so both LIDs are permissive and "subnet local" is clear (cm_format_req).
        CmPath primary = new CmPath(global ? 0xFFFF : path.slid(), global ? 0xFFFF : path.dlid(),
                Gids.toWire(path.sgid()), Gids.toWire(path.dgid()), path.flowLabel() & 0xFFFFF, path.rate() & 0x3F,
                path.trafficClass(), path.hopLimit(), path.sl(), !global,
                CmTimings.ackTimeout(timings.caAckDelay(), path.packetLifeTime()));
        CmReq req = new CmReq(id.localId, 0, id.serviceId, id.port.caGuid(), 0, id.localQpn, id.responderResources, 0,
                id.initiatorDepth, 0, timings.cmResponseTimeout(), 0, p.flowControl(), id.rqPsn,
                timings.cmResponseTimeout(), Math.min(7, id.retryCount), id.pkey, id.pathMtu.code(), false,
                Math.min(7, id.rnrRetryCount), id.maxCmRetries, p.srq(), 0, primary, CmPath.ABSENT, false,
                p.privateData());
        id.timers.sendRequest(req, id.tid, id.responseTimeoutMs, id.maxCmRetries, to);
    }

    /** {@code ib_send_cm_rep}: records this side's QP, then sends the REP until the RTU (or an MRA) comes. */
    static void sendRep(IbCmId id, IbCmRepParam p, IbCmState to) {
        id.localQpn = p.qpn();
        id.rqPsn = p.startingPsn();
        id.initiatorDepth = p.initiatorDepth();
        id.responderResources = p.responderResources();
        CmRep rep = new CmRep(id.localId, id.remoteId, 0, id.localQpn, 0, id.rqPsn, 0, id.responderResources,
                id.initiatorDepth, id.cm().timings.caAckDelay(), 0, p.flowControl(), Math.min(7, p.rnrRetryCount()),
                p.srq(), id.port.caGuid(), p.privateData());
        id.timers.sendRequest(rep, id.tid, id.responseTimeoutMs, id.maxCmRetries, to);
    }

    /** {@code ib_send_cm_sidr_req}: records the destination, then sends the SIDR_REQ until it is answered. */
    static void sendSidrReq(IbCmId id, IbCmSidrReqParam p, IbCmState to) {
        IbCm cm = id.cm();
        id.port = p.port();
        id.remoteAddress = p.destination();
        id.serviceId = p.serviceId();
        id.pkey = p.pkey();
        id.maxCmRetries = cm.timings.maxCmRetries();
        id.responseTimeoutMs = CmTimings.toMillis(cm.timings.cmResponseTimeout());
        id.tid = cm.formTid(id.port, id.localId);
        id.timers.sendRequest(new CmSidrReq(id.localId, id.pkey, id.serviceId, p.privateData()), id.tid,
                id.responseTimeoutMs, id.maxCmRetries, to);
    }

    static void sendSidrRep(IbCmId id, SidrStatus status, int qpn, int qkey, Octets privateData) {
        id.cm().send(id.port, id.remoteAddress, id.tid, new CmSidrRep(id.remoteId, status, 0, qpn, id.serviceId, qkey,
                Octets.EMPTY, privateData));
    }

    /** {@code cm_format_rej}: the comm IDs and "message rejected" depend on the state the REJ leaves. */
    static void sendRej(IbCmId id, IbCmState from, CmRejectReason reason, Octets rejectInfo, Octets privateData) {
        int local = from == IbCmState.REQ_RCVD ? 0 : id.localId;
        CmMessageKind kind = switch (from) {
            case REQ_RCVD, MRA_REQ_SENT -> CmMessageKind.REQ;
            case REP_RCVD, MRA_REP_SENT -> CmMessageKind.REP;
            default -> CmMessageKind.OTHER;
        };
        id.cm().send(id.port, id.remoteAddress, id.tid,
                new CmRej(local, id.remoteId, kind, reason, rejectInfo, privateData));
    }

    /** An MRA for the REQ or the REP, by the state it is sent in, with the stored service timeout and data. */
    static void sendMra(IbCmId id, IbCmState mraState) {
        CmMessageKind kind = mraState == IbCmState.MRA_REQ_SENT ? CmMessageKind.REQ : CmMessageKind.REP;
        id.cm().send(id.port, id.remoteAddress, id.tid,
                new CmMra(id.localId, id.remoteId, kind, id.serviceTimeout & 0x1F, id.storedData));
    }

    /** What the peer's REP tells the active side: its ids, QP, PSN, resources and ACK delay. */
    static void recordRep(IbCmId id, CmRep rep) {
        id.remoteId = rep.localCommId();
        id.remoteQpn = rep.localQpn();
        id.remoteCaGuid = rep.localCaGuid();
        id.initiatorDepth = rep.responderResources();
        id.responderResources = rep.initiatorDepth();
        id.sqPsn = rep.startingPsn();
        id.rnrRetryCount = rep.rnrRetryCount();
        id.targetAckDelay = rep.targetAckDelay();
        id.avTimeout = CmTimings.ackTimeout(id.targetAckDelay, id.avTimeout - 1);
    }

    /** A REJ's reject info for TIMEOUT: the CA GUID, big-endian. */
    static Octets guidBytes(long guid) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) guid;
            guid >>>= 8;
        }
        return Octets.of(b);
    }
}
