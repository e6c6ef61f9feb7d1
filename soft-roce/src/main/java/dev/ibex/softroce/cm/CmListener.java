package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.softroce.mad.CmReq;
import dev.ibex.softroce.mad.CmaHeader;
import dev.ibex.softroce.mad.Octets;
import dev.ibex.softroce.wire.MalformedPacketException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The listening side of one {@link SoftCmId}: {@code rdma_listen}, the kernel's {@code cma_ib_req_handler} making a
 * new id for each REQ or SIDR_REQ that addresses the listener ({@code cma_match_private_data}), and librdmacm's
 * CONNECT_REQUEST backlog: a request takes a slot until the application takes its event, and one that finds the
 * backlog full is dropped unanswered so that the peer's retry may find room. It owns the backlog's counters.
 *
 * <p>Threading: called under the service's lock (the IB CM calls {@link #onConnectRequest} with it held).
 */
final class CmListener {
    private static final int MAX_BACKLOG = 1024; // net.rdma_ucm.max_backlog

    private final SoftCmId id;
    private final RdmaCm svc;
    /** Free slots: requests that may still wait for the application to take their CONNECT_REQUEST. */
    private int backlog;
    private int backlogSize;
    /** Requests dropped because the backlog was full. */
    private long backlogDrops;

    CmListener(SoftCmId id) {
        this.id = id;
        this.svc = id.svc;
    }

    /** {@code rdma_listen}: binds an IDLE id to the wildcard first; the port must be the listener's alone. */
    void listen(int requested) {
        if (id.state == RdmaCmState.IDLE) {
            id.address.bind(new InetSocketAddress(CmAddress.anyV4(), 0));
        }
        if (id.state != RdmaCmState.ADDR_BOUND) {
            throw SoftCmId.invalid("rdma_listen", id.stateWhy());
        }
        int port = id.src.getPort();
        if (id.reuseAddr) {
            Errno e = svc.ports.checkUnique(id, port);
            if (e != null) {
                throw new RdmaException("rdma_listen", e, "another id shares port " + port
                        + "; a listener needs it to itself");
            }
            id.reuseAddr = false;
        }
        IbCmId l = svc.ibCm.createId(this::onConnectRequest, id);
        int ret = l.listen(id.device, id.ps.serviceId(port));
        if (ret != 0) {
            l.destroy();
            throw new RdmaException("rdma_listen", Errno.EADDRINUSE, "service " + id.ps + ":" + port
                    + " already has a listener");
        }
        id.ibId = l;
        this.backlog = requested > 0 && requested < MAX_BACKLOG ? requested : MAX_BACKLOG;
        this.backlogSize = this.backlog;
        id.state = RdmaCmState.LISTEN;
    }

    /** {@code cma_ib_req_handler}: a REQ or SIDR_REQ reached this listener. */
    private int onConnectRequest(IbCmEvent e) {
        if (id.state != RdmaCmState.LISTEN) {
            return -Errno.ECONNABORTED.number();
        }
        boolean sidr = e.type() == IbCmEventType.SIDR_REQ_RECEIVED;
        if (sidr ? id.qpType != QpType.UD : id.qpType != QpType.RC) {
            return -Errno.EINVAL.number();
        }
        Octets pd = e.message().privateData();
        CmaHeader hdr;
        try {
            hdr = CmaHeader.decode(pd);
        } catch (MalformedPacketException | IllegalArgumentException ex) {
            return -Errno.EINVAL.number();
        }
        if (!matches(hdr)) {
            return -Errno.EINVAL.number();
        }
        if (backlog == 0) {
            // dropped silently, as the kernel's rdma_cm: the peer's retry (after its CM response timeout) may find room
            if (backlogDrops++ % 1000 == 0) {
                SoftCmId.LOG.warn("listener {}: backlog of {} undelivered requests full, a request from {} dropped ({}"
                        + " so far; the peer asks again after its CM response timeout): the application takes its"
                        + " CONNECT_REQUEST events too slowly or its backlog is too small", id.src, backlogSize,
                        hdr.source(), backlogDrops);
            }
            return -IbCmId.ENOMEM;
        }
        backlog--;
        IbCmId child = e.id();
        SoftCmId conn = new SoftCmId(svc, id.channel, id.ps, id.context());
        conn.listener = id;
        conn.device = (CmDevice) child.port();
        conn.src = new InetSocketAddress(hdr.destination(), id.src.getPort());
        conn.dst = new InetSocketAddress(hdr.source(), hdr.port());
        conn.afOnly = id.afOnly;
        conn.ibId = child;
        conn.state = RdmaCmState.CONNECT;
        child.alsoAcceptFrom(conn.qps::fromAlternatePath);
        child.handler(conn.handshake::onIbEvent);
        child.context(conn);
        svc.register(conn);
        byte[] user = CmaHeader.userData(pd).toArray();
        if (sidr) {
            id.channel.enqueue(new CmEvent(CmEventType.CONNECT_REQUEST, conn, id, 0, user, null,
                    new UdParam(user, null, 0, 0), null));
        } else {
            conn.route = child.path();
            CmReq req = (CmReq) e.message();
            conn.handshake.requested(req);
            ConnParam cp = new ConnParam(user, req.initiatorDepth(), req.responderResources(),
                    req.endToEndFlowControl(), req.retryCount(), req.rnrRetryCount(), req.srq(), req.localQpn());
            id.channel.enqueue(new CmEvent(CmEventType.CONNECT_REQUEST, conn, id, 0, user, cp, null, null));
            // The RDMA CM's delayed MRA: sent only if the REQ is retried before the application accepts.
            child.sendMra(svc.timings.mraServiceTimeout(), true, Octets.EMPTY);
        }
        return 0;
    }

    /** {@code cma_match_private_data}: does the REQ's cma_hdr address this listener? */
    private boolean matches(CmaHeader hdr) {
        InetAddress a = id.src.getAddress();
        if (a.isAnyLocalAddress() && !id.afOnly) {
            return true;
        }
        boolean v4 = a instanceof Inet4Address;
        if (hdr.ipVersion() != (v4 ? 4 : 6)) {
            return false;
        }
        return a.isAnyLocalAddress() || a.equals(hdr.destination());
    }

    /**
     * A request left the backlog's queue: the application took its CONNECT_REQUEST, or the request's id went
     * before it did. Its slot is free again.
     */
    void requestLeft() {
        backlog++;
    }
}
