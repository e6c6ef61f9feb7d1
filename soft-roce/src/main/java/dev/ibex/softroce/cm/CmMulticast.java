package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The multicast groups of one UD {@link SoftCmId}: {@code rdma_join_multicast} (the kernel's
 * {@code cma_iboe_join_multicast}: MULTICAST_JOIN with the group's address handle, no SA on RoCE),
 * {@code rdma_leave_multicast}, and librdmacm's {@code ucma_process_join}, which attaches the id's QP only when the
 * application takes the MULTICAST_JOIN event. It owns the id's {@link McMembership}s.
 *
 * <p>Threading: called under the service's lock; the join's timer callback and {@link #leave} take that lock.
 */
final class CmMulticast {
    private static final int ENOTSUPP = 524; // the kernel's internal "not supported", as rdma_join_multicast returns it

    private final SoftCmId id;
    private final RdmaCm svc;
    private final List<McMembership> memberships = new ArrayList<>();

    CmMulticast(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    /** {@code rdma_join_multicast}: MULTICAST_JOIN follows on the id's channel. */
    void join(InetSocketAddress group, boolean sendOnly, Object context) {
        if (id.device == null || (id.state != RdmaCmState.ADDR_BOUND && id.state != RdmaCmState.ADDR_RESOLVED)) {
            throw SoftCmId.invalid("rdma_join_multicast", "bind or resolve the id first; " + id.stateWhy());
        }
        if (id.qpType != QpType.UD) {
            throw SoftCmId.invalid("rdma_join_multicast", "only UD ids (UDP, IPOIB) join multicast groups");
        }
        InetAddress g = group.getAddress();
        if (g.isAnyLocalAddress()) {
            throw SoftCmId.invalid("rdma_join_multicast", "the wildcard address is no group");
        }
        if (g instanceof Inet6Address) {
            throw new RdmaException("rdma_join_multicast", ENOTSUPP, "IPv6 groups are not supported on RoCEv2"
                    + " (the kernel's cma_iboe_join_multicast refuses them too)");
        }
        McMembership m = new McMembership(id, group, Gid.of(g), sendOnly, context);
        memberships.add(m);
        svc.tracker().opened(m);
        AhAttr ah = new AhAttr(m.mgid, 0, id.device.gidIndex(), 64, 0, 0, 0, 0, 0, true, id.device.portNum());
        CmEvent ev = new CmEvent(CmEventType.MULTICAST_JOIN, id, null, 0, null, null,
                new UdParam(null, ah, UdParam.MULTICAST_QPN, id.qkey), context);
        m.pending = svc.env.timer().schedule(0, () -> svc.locked(() -> {
            m.pending = null;
            if (!id.closed && memberships.contains(m) && id.state != RdmaCmState.DEVICE_REMOVAL) {
                m.queued = ev;
                id.channel.enqueue(ev);
            }
        }));
    }

    /** {@code rdma_leave_multicast}. */
    void leave(InetSocketAddress group) {
        for (McMembership m : memberships) {
            if (m.group.equals(group)) {
                leave(m);
                return;
            }
        }
        throw new RdmaException("rdma_leave_multicast", Errno.EADDRNOTAVAIL, "the id has not joined " + group);
    }

    /** Detaches (if attached), cancels a join in progress, drops its undelivered event. */
    void leave(McMembership m) {
        svc.locked(() -> {
            if (!memberships.remove(m)) {
                return;
            }
            if (m.pending != null) {
                m.pending.cancel();
            }
            if (m.queued != null) {
                CmEvent q = m.queued;
                id.channel.remove(e -> e == q);
            }
            QueuePair qp = id.qps.qp();
            if (m.attached && qp != null) {
                try {
                    qp.detachMulticast(m.mgid, 0);
                } catch (RuntimeException e) {
                    SoftCmId.LOG.debug("detach from {} failed: {}", m.group, e.toString());
                }
            }
            svc.tracker().closed(m);
        });
    }

    /** The id is going: leaves every group. */
    void leaveAll() {
        for (McMembership m : new ArrayList<>(memberships)) {
            leave(m);
        }
    }

    /** The id's QP was destroyed: no group is attached any more. */
    void qpDestroyed() {
        for (McMembership m : memberships) {
            m.attached = false;
        }
    }

    /**
     * {@code ucma_process_join}, as the application takes MULTICAST_JOIN: attaches the QP (unless the join is
     * send-only); a refusal turns the event into MULTICAST_ERROR with the errno.
     */
    CmEvent delivered(CmEvent e) {
        for (McMembership m : memberships) {
            if (m.queued == e) {
                m.queued = null;
                QueuePair qp = id.qps.qp();
                if (qp != null && !m.sendOnly) {
                    try {
                        qp.attachMulticast(m.mgid, 0); // ucma_process_join
                        m.attached = true;
                    } catch (RuntimeException ex) {
                        int errno = ex instanceof RdmaException r && r.errnoValue() != 0 ? r.errnoValue()
                                : Errno.EINVAL.number();
                        // the event carries only the errno: say why here
                        SoftCmId.LOG.warn("attaching a QP to {} failed: {}", m.group, ex.toString(), ex);
                        return new CmEvent(CmEventType.MULTICAST_ERROR, id, null, -errno, null, null, e.ud(),
                                e.context());
                    }
                }
                return e;
            }
        }
        return e;
    }
}
