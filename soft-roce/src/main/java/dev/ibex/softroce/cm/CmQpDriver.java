package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import java.net.InetAddress;

/**
 * The QP of one {@link SoftCmId} and librdmacm's share of driving it: {@code rdma_create_qp} moves it to INIT (a UD
 * QP straight on to RTS), {@code rdma_init_qp_attr} fills in the CM's attributes, RTR and RTS follow a REP or an
 * accept ({@code ucma_modify_qp_rtr/rts}), and a reject, a failed handshake or a disconnect moves it to ERR. The QP's
 * own events come back here too: COMM_EST establishes the connection, a path migration moves the CM's messages
 * (APM, {@link CmPathFollower}). It owns the QP and its follower, so that no other part of the id modifies the QP.
 *
 * <p>Threading: called under the service's lock; the QP's event callbacks take that lock on the CM timer's thread.
 */
final class CmQpDriver {
    static final int RDMA_MAX_RESP_RES = 0xFF;
    static final int RDMA_MAX_INIT_DEPTH = 0xFF;

    private final SoftCmId id;
    private final RdmaCm svc;
    private QueuePair qp;
    /** APM: accepts CM messages from the QP's alternate path and follows its migrations (RC ids with a QP). */
    private volatile CmPathFollower follower;

    CmQpDriver(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    /** The id's QP, or {@code null}. */
    QueuePair qp() {
        return qp;
    }

    /** {@code rdma_init_qp_attr}. */
    QpAttr initQpAttr(QpState target) {
        CmDevice device = id.device;
        if (device == null) {
            throw SoftCmId.invalid("rdma_init_qp_attr", "the id is not bound to a device");
        }
        IbCmId ibId = id.ibId;
        QpAttr a;
        if (ibId == null || id.qpType == QpType.UD || id.state == RdmaCmState.LISTEN) {
            // cma_ib_init_qp_attr
            a = new QpAttr().state(target).pkeyIndex(0).portNum(device.portNum());
            if (id.qpType == QpType.UD) {
                a.qkey(id.qkey);
            } else {
                a.accessFlags(0);
            }
        } else {
            a = ibId.initQpAttr(target);
            if (a == null) {
                throw SoftCmId.invalid("rdma_init_qp_attr", target + " attributes in IB CM state " + ibId.state());
            }
        }
        if (target == QpState.RTR && a.has(QpAttr.RQ_PSN)) {
            a.rqPsn(id.seqNum);
        }
        if (a.has(QpAttr.TIMEOUT) && id.ackTimeout >= 0) {
            a.timeout(id.ackTimeout);
        }
        return a;
    }

    /** {@code ucma_modify_qp_rtr/rts}: the CM's attributes, with the resources the application chose. */
    void modify(QpState target, int resources) {
        if (target == QpState.RTR) {
            // ucma_modify_qp_rtr refreshes INIT first: the QP was created with no remote access, and only now do
            // the negotiated responder resources say whether the peer may RDMA READ / atomically access it.
            qp.modify(initQpAttr(QpState.INIT));
        }
        QpAttr a = initQpAttr(target);
        if (target == QpState.RTR && resources != RDMA_MAX_RESP_RES) {
            a.maxDestRdAtomic(resources);
        }
        if (target == QpState.RTS && resources != RDMA_MAX_INIT_DEPTH) {
            a.maxRdAtomic(resources);
        }
        qp.modify(a);
    }

    /** Moves the QP (if any) to ERR: its posted work flushes. */
    void toError() {
        if (qp != null) {
            try {
                qp.modify(new QpAttr().state(QpState.ERR));
            } catch (RuntimeException e) {
                SoftCmId.LOG.debug("QP {} to ERR failed: {}", qp.qpNum(), e.toString());
            }
        }
    }

    /** {@code rdma_create_qp}: a QP of the id's type on its device, in INIT (a UD QP in RTS). */
    QueuePair create(ProtectionDomain pd, QpInitAttr attr) {
        if (id.device == null) {
            throw SoftCmId.invalid("rdma_create_qp", "the id is not bound to a device yet (bind or resolve first)");
        }
        if (qp != null) {
            throw SoftCmId.invalid("rdma_create_qp", "the id already has a QP");
        }
        if (pd.device() != id.device.context()) {
            throw SoftCmId.invalid("rdma_create_qp", "the PD belongs to another device than the id's");
        }
        if (attr.type() != id.qpType) {
            throw SoftCmId.invalid("rdma_create_qp", id.ps + " ids take " + id.qpType + " QPs, not " + attr.type());
        }
        QueuePair q = pd.createQueuePair(attr);
        try {
            if (id.qpType == QpType.UD) {
                q.modify(initQpAttr(QpState.INIT).state(QpState.INIT));
                q.modify(new QpAttr().state(QpState.RTR));
                q.modify(new QpAttr().state(QpState.RTS).sqPsn(0));
            } else {
                IbCmId ibId = id.ibId;
                QpAttr init = ibId != null && id.state != RdmaCmState.LISTEN ? ibId.initQpAttr(QpState.INIT) : null;
                q.modify(init != null ? init : initQpAttr(QpState.INIT));
            }
        } catch (RuntimeException e) {
            q.close();
            throw e;
        }
        qp = q;
        if (id.qpType != QpType.UD) {
            svc.env.onCommEst(q, () -> svc.env.timer().execute(this::commEst));
            follower = new CmPathFollower(q, id.device.context(), svc.env);
            svc.env.onPathMigrated(q, () -> svc.env.timer().execute(this::pathMigrated));
        }
        return q;
    }

    /** {@code rdma_destroy_qp}: the id's multicast groups are no longer attached to any QP. */
    void destroy() {
        if (qp != null) {
            QueuePair q = qp;
            qp = null;
            id.multicast.qpDestroyed();
            svc.env.forgetCommEst(q);
            follower = null;
            q.close();
        }
    }

    /** The id is going: closes its QP, if any, whatever the QP says. */
    void close() {
        if (qp != null) {
            QueuePair q = qp;
            qp = null;
            svc.env.forgetCommEst(q);
            follower = null;
            try {
                q.close();
            } catch (RuntimeException e) {
                SoftCmId.LOG.debug("closing QP {} failed: {}", q.qpNum(), e.toString());
            }
        }
    }

    /** Whether {@code source} is the remote end of the QP's alternate path (APM: accept its CM messages). */
    boolean fromAlternatePath(InetAddress source) {
        CmPathFollower f = follower;
        return f != null && f.test(source);
    }

    /** The QP migrated to its alternate path (APM): the CM's messages follow it. */
    private void pathMigrated() {
        svc.locked(() -> {
            if (!id.closed && id.ibId != null && follower != null) {
                follower.migrated(id.ibId);
            }
        });
    }

    /** The QP received its first packet in RTR: the connection is usable even if the RTU was lost. */
    private void commEst() {
        svc.locked(() -> {
            if (!id.closed && id.ibId != null) {
                id.ibId.establish(); // EISCONN when the RTU already did it: nothing to do
            }
        });
    }
}
