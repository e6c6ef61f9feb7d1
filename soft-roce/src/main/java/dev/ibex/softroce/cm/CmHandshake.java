package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.softroce.mad.CmRej;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.CmRep;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmaHeader;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;

/**
 * The connection handshake of one {@link SoftCmId}: {@code rdma_connect}, {@code rdma_accept}, {@code rdma_reject},
 * {@code rdma_disconnect}, {@code rdma_establish} and {@code rdma_notify} over its IB CM id (REQ, REP, RTU, REJ,
 * DREQ, DREP), and the kernel's {@code cma_ib_handler} mapping the IB CM's events to RDMA CM events, with
 * librdmacm's event processing folded in (RTR/RTS/RTU when a REP arrives for an id with a QP). UD ids hand their
 * SIDR exchange to {@link CmSidr}. It owns what the two sides negotiate: QP number, SRQ, RDMA read depths.
 *
 * <p>Threading: called under the service's lock (the IB CM calls {@link #onIbEvent} with it held).
 */
final class CmHandshake {
    private final SoftCmId id;
    private final RdmaCm svc;
    private int qpNum;
    private boolean srq;
    private int responderResources;
    private int initiatorDepth;
    /** The REP could not be completed (RTR/RTS or RTU failed): CONNECT_ERROR was the id's last word. */
    private boolean connectError;

    CmHandshake(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    /** A listener made this id for {@code req}: the depths answer the requester's, crosswise. */
    void requested(CmReq req) {
        responderResources = req.initiatorDepth();
        initiatorDepth = req.responderResources();
    }

    /** {@code rdma_connect}: REQ (SIDR_REQ for UD ids) to the resolved route. */
    void connect(ConnParam param) {
        if (id.state != RdmaCmState.ROUTE_RESOLVED) {
            throw SoftCmId.invalid("rdma_connect", id.stateWhy());
        }
        validParam(param, "rdma_connect");
        DeviceAttributes attrs = id.device.context().queryDevice();
        initiatorDepth = param != null && param.initiatorDepth() != CmQpDriver.RDMA_MAX_INIT_DEPTH
                ? param.initiatorDepth() : attrs.maxQpInitRdAtom();
        responderResources = param != null && param.responderResources() != CmQpDriver.RDMA_MAX_RESP_RES
                ? param.responderResources() : attrs.maxQpRdAtom();
        QueuePair qp = id.qps.qp();
        if (qp != null) {
            qpNum = qp.qpNum();
            srq = qp.srq() != null;
        } else {
            qpNum = param.qpNum();
            srq = param.srq();
        }
        Octets pd = CmaHeader.of(id.src.getPort(), id.src.getAddress(), id.dst.getAddress())
                .withUserData(Octets.of(param == null ? new byte[0] : param.privateData()));
        id.state = RdmaCmState.CONNECT;
        int ret;
        if (id.qpType == QpType.UD) {
            ret = id.sidr.request(pd);
        } else {
            id.ibId = svc.ibCm.createId(this::onIbEvent, id);
            id.ibId.alsoAcceptFrom(id.qps::fromAlternatePath);
            ConnParam p = param == null ? ConnParam.DEFAULT : param;
            ret = id.ibId.sendReq(new IbCmReqParam(id.device, id.dst.getAddress(), id.ps.serviceId(id.dst.getPort()),
                    id.route, qpNum, id.seqNum, responderResources, initiatorDepth, p.flowControl(),
                    Math.min(7, p.retryCount()), Math.min(7, p.rnrRetryCount()), srq, pd));
        }
        if (ret != 0) {
            id.ibId.destroy();
            id.ibId = null;
            id.state = RdmaCmState.ROUTE_RESOLVED;
            throw new RdmaException("rdma_connect", -ret, "the IB CM refused the request");
        }
    }

    /** {@code ucma_valid_param}. */
    private void validParam(ConnParam param, String verb) {
        if (id.ps != PortSpace.TCP) {
            return;
        }
        if (id.qps.qp() == null && param == null) {
            throw SoftCmId.invalid(verb, "an id without a QP needs connection parameters (qpNum)");
        }
        if (param == null) {
            return;
        }
        DeviceAttributes attrs = id.device.context().queryDevice();
        if (param.responderResources() != CmQpDriver.RDMA_MAX_RESP_RES
                && param.responderResources() > attrs.maxQpRdAtom()) {
            throw SoftCmId.invalid(verb, "responderResources " + param.responderResources()
                    + " exceeds the device's " + attrs.maxQpRdAtom());
        }
        if (param.initiatorDepth() != CmQpDriver.RDMA_MAX_INIT_DEPTH
                && param.initiatorDepth() > attrs.maxQpInitRdAtom()) {
            throw SoftCmId.invalid(verb, "initiatorDepth " + param.initiatorDepth() + " exceeds the device's "
                    + attrs.maxQpInitRdAtom());
        }
    }

    /** {@code cma_ib_handler} with librdmacm's event processing folded in. */
    int onIbEvent(IbCmEvent e) {
        if ((e.type() != IbCmEventType.TIMEWAIT_EXIT && id.state != RdmaCmState.CONNECT)
                || (e.type() == IbCmEventType.TIMEWAIT_EXIT && id.state != RdmaCmState.DISCONNECT)) {
            return 0;
        }
        switch (e.type()) {
            case REQ_ERROR, REP_ERROR -> id.emit(CmEventType.UNREACHABLE, -SoftCmId.ETIMEDOUT);
            case REP_RECEIVED -> {
                id.ibId.sendMra(svc.timings.mraServiceTimeout(), true, Octets.EMPTY);
                CmRep rep = (CmRep) e.message();
                byte[] pd = rep.privateData().toArray();
                ConnParam cp = new ConnParam(pd, rep.initiatorDepth(), rep.responderResources(),
                        rep.endToEndFlowControl(), 0, rep.rnrRetryCount(), rep.srq(), rep.localQpn());
                if (id.qps.qp() == null) {
                    responderResources = rep.initiatorDepth();
                    initiatorDepth = rep.responderResources();
                    id.emit(CmEventType.CONNECT_RESPONSE, 0, pd, cp, null, null);
                } else {
                    int status = connResp();
                    if (status == 0) {
                        id.emit(CmEventType.ESTABLISHED, 0, pd, cp, null, null);
                    } else {
                        connectError = true;
                        id.emit(CmEventType.CONNECT_ERROR, status, pd, cp, null, null);
                    }
                }
            }
            case RTU_RECEIVED, USER_ESTABLISHED -> id.emit(CmEventType.ESTABLISHED, 0, null,
                    new ConnParam(null, 0, 0, false, 0, 0, false, 0), null, null);
            case DREQ_ERROR, DREQ_RECEIVED, DREP_RECEIVED -> {
                id.state = RdmaCmState.DISCONNECT;
                if (!connectError) {
                    id.emit(CmEventType.DISCONNECTED, e.type() == IbCmEventType.DREQ_ERROR ? -SoftCmId.ETIMEDOUT
                            : 0, null, new ConnParam(null, 0, 0, false, 0, 0, false, 0), null, null);
                }
            }
            case TIMEWAIT_EXIT -> id.emit(CmEventType.TIMEWAIT_EXIT, 0);
            case REJ_RECEIVED -> {
                if (!connectError) {
                    id.qps.toError();
                    CmRej rej = (CmRej) e.message();
                    byte[] pd = rej.privateData().toArray();
                    id.emit(CmEventType.REJECTED, rej.reason().code(), pd,
                            new ConnParam(pd, 0, 0, false, 0, 0, false, 0), null, null);
                }
            }
            default -> {
                // MRA_RECEIVED is ignored
            }
        }
        return 0;
    }

    /** {@code ucma_process_conn_resp} + {@code cma_rep_recv}: RTR, RTS, RTU; REJ 28 when the QP refuses. */
    private int connResp() {
        try {
            id.qps.modify(QpState.RTR, CmQpDriver.RDMA_MAX_RESP_RES);
            id.qps.modify(QpState.RTS, CmQpDriver.RDMA_MAX_INIT_DEPTH);
        } catch (RuntimeException ex) {
            SoftCmId.LOG.debug("RTR/RTS after REP failed: {}", ex.toString());
            id.qps.toError();
            id.ibId.sendRej(CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY, Octets.EMPTY);
            return ex instanceof RdmaException r && r.errnoValue() != 0 ? -r.errnoValue() : -Errno.EINVAL.number();
        }
        int ret = id.ibId.sendRtu(Octets.EMPTY);
        if (ret != 0) {
            id.qps.toError();
            id.ibId.sendRej(CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY, Octets.EMPTY);
        }
        return ret;
    }

    /** {@code rdma_accept}: RTR/RTS for an id with a QP, then REP (SIDR_REP for UD ids). */
    void accept(ConnParam param) {
        if (id.state != RdmaCmState.CONNECT || id.ibId == null || id.listener == null) {
            throw SoftCmId.invalid("rdma_accept", id.stateWhy() + " (accept an id from CONNECT_REQUEST)");
        }
        byte[] data = param == null ? new byte[0] : param.privateData();
        if (id.qpType == QpType.UD) {
            id.sidr.accept(param, data);
            return;
        }
        validParam(param, "rdma_accept");
        QueuePair qp = id.qps.qp();
        if (qp == null) {
            qpNum = param.qpNum();
            srq = param.srq();
        } else {
            qpNum = qp.qpNum();
            srq = qp.srq() != null;
        }
        ConnParam p = param == null
                ? ConnParam.DEFAULT.withRdmaDepth(CmQpDriver.RDMA_MAX_RESP_RES, CmQpDriver.RDMA_MAX_INIT_DEPTH)
                : param;
        if (p.initiatorDepth() != CmQpDriver.RDMA_MAX_INIT_DEPTH) {
            initiatorDepth = p.initiatorDepth();
        }
        if (p.responderResources() != CmQpDriver.RDMA_MAX_RESP_RES) {
            responderResources = p.responderResources();
        }
        try {
            if (id.qps.qp() != null) {
                id.qps.modify(QpState.RTR, responderResources);
                id.qps.modify(QpState.RTS, initiatorDepth);
            }
            int ret = id.ibId.sendRep(new IbCmRepParam(qpNum, id.seqNum, responderResources, initiatorDepth,
                    p.flowControl(), Math.min(7, p.rnrRetryCount()), srq, Octets.of(data)));
            if (ret != 0) {
                throw new RdmaException("rdma_accept", -ret, "the connection request is no longer pending");
            }
        } catch (RuntimeException ex) {
            // rdma_accept's failure path: QP to ERR and REJ CONSUMER_DEFINED without private data
            id.qps.toError();
            id.ibId.sendRej(CmRejectReason.CONSUMER_DEFINED, Octets.EMPTY, Octets.EMPTY);
            throw ex;
        }
    }

    /** {@code rdma_reject} (SIDR_REP REJECT for UD ids), with any IB CM reason. */
    void reject(byte[] data, CmRejectReason reason) {
        IbCmId ibId = id.ibId;
        if (ibId == null) {
            throw SoftCmId.invalid("rdma_reject", "no connection request or response to reject");
        }
        int ret = id.qpType == QpType.UD ? ibId.sendSidrRep(SidrStatus.REJECT, 0, 0, Octets.of(data))
                : ibId.sendRej(reason, Octets.EMPTY, Octets.of(data));
        if (ret != 0) {
            throw new RdmaException("rdma_reject", -ret, id.stateWhy());
        }
    }

    /** {@code rdma_disconnect}: QP to ERR, then DREQ (or DREP to the peer's DREQ). */
    void disconnect() {
        if (id.ibId == null) {
            throw SoftCmId.invalid("rdma_disconnect", "the id is not connected");
        }
        id.qps.toError(); // ucma_shutdown: posted work flushes before the DREQ leaves
        if (id.ibId.sendDreq(Octets.EMPTY) != 0) {
            id.ibId.sendDrep(Octets.EMPTY);
        }
    }

    /** {@code rdma_establish}: the RTU of an id whose application drives its own QP. */
    void establish() {
        IbCmId ibId = id.ibId;
        if (id.qps.qp() != null || ibId == null) {
            throw SoftCmId.invalid("rdma_establish", id.qps.qp() != null
                    ? "the id has a QP: the CM establishes it" : "the id is not connecting");
        }
        int ret = ibId.sendRtu(Octets.EMPTY);
        if (ret != 0) {
            throw new RdmaException("rdma_establish", -ret, "no CONNECT_RESPONSE is pending");
        }
    }

    /** {@code rdma_notify}: a QP event the application saw (COMM_EST, PATH_MIG). */
    void notify(AsyncEventType event) {
        IbCmId ibId = id.ibId;
        if (ibId == null) {
            throw SoftCmId.invalid("rdma_notify", "the id has no connection");
        }
        int ret = switch (event) {
            case COMM_EST -> ibId.establish();
            case PATH_MIG -> ibId.state() == IbCmState.ESTABLISHED ? 0 : -Errno.EINVAL.number();
            default -> -Errno.EINVAL.number();
        };
        if (ret != 0) {
            throw new RdmaException("rdma_notify", -ret, event + " " + id.stateWhy());
        }
    }
}
