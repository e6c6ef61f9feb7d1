package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.softroce.mad.CmSidrRep;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.mad.SidrStatus;

/**
 * Service ID resolution for one UD {@link SoftCmId} (the kernel's {@code cma_resolve_ib_udp},
 * {@code cma_sidr_rep_handler} and {@code cma_send_sidr_rep}): {@code rdma_connect} sends a SIDR_REQ, the SIDR_REP
 * becomes ESTABLISHED with the remote QP number, Q_Key and address handle (or UNREACHABLE), and {@code rdma_accept}
 * answers with the local ones. A UD id has no connection, so none of the RC handshake's states apply.
 *
 * <p>Threading: called under the service's lock (the IB CM calls its handler with it held).
 */
final class CmSidr {
    private final SoftCmId id;
    private final RdmaCm svc;

    CmSidr(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    /** Sends the SIDR_REQ carrying {@code privateData} (cma_hdr and the user's bytes); 0 or a negative errno. */
    int request(Octets privateData) {
        CmDevice device = id.device;
        id.ibId = svc.ibCm.createId(this::onSidrEvent, id);
        return id.ibId.sendSidrReq(new IbCmSidrReqParam(device, id.dst.getAddress(),
                id.ps.serviceId(id.dst.getPort()), id.route.pkey(), privateData));
    }

    /** {@code cma_sidr_rep_handler}. */
    private int onSidrEvent(IbCmEvent e) {
        if (id.state != RdmaCmState.CONNECT) {
            return 0;
        }
        switch (e.type()) {
            case SIDR_REQ_ERROR -> id.emit(CmEventType.UNREACHABLE, -SoftCmId.ETIMEDOUT);
            case SIDR_REP_RECEIVED -> {
                CmSidrRep rep = (CmSidrRep) e.message();
                byte[] pd = rep.privateData().toArray();
                if (rep.status() != SidrStatus.SUCCESS) {
                    id.emit(CmEventType.UNREACHABLE, rep.status().code(), pd, null, new UdParam(pd, null, 0, 0),
                            null);
                } else if (rep.qKey() != id.qkey && id.qkey != 0) {
                    id.emit(CmEventType.ADDR_ERROR, -Errno.EINVAL.number()); // cma_set_qkey refuses another Q_Key
                } else {
                    PathRecord route = id.route;
                    CmDevice device = id.device;
                    AhAttr ah = new AhAttr(route.dgid(), route.flowLabel(), device.gidIndex(), route.hopLimit(),
                            route.trafficClass(), 0, route.sl(), 0, route.rate(), true, device.portNum());
                    id.emit(CmEventType.ESTABLISHED, 0, pd, null, new UdParam(pd, ah, rep.qpn(), rep.qKey()), null);
                }
            }
            default -> {
            }
        }
        return 0;
    }

    /** {@code cma_send_sidr_rep}: the local QP number and Q_Key with the application's {@code data}. */
    void accept(ConnParam param, byte[] data) {
        QueuePair qp = id.qps.qp();
        int qpn = qp != null ? qp.qpNum() : param == null ? 0 : param.qpNum();
        int ret = id.ibId.sendSidrRep(SidrStatus.SUCCESS, qpn, id.qkey, Octets.of(data));
        if (ret != 0) {
            throw new RdmaException("rdma_accept", -ret, "the request was already answered");
        }
    }
}
