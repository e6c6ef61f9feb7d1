package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.UdParam;

/**
 * A CM id's side of the connection exchange. In loopback: connect sends the REQ to the listener of the address (a
 * new id on its channel, CONNECT_REQUEST; REJECTED 8 or UNREACHABLE 1 when nobody listens), accept connects the
 * two QPs and reports ESTABLISHED on both sides (a UDP id's SIDR answer to the active side only; REJECTED 10 when
 * the active side gave up), reject answers REJECTED 28 or UNREACHABLE 2 with private data, and disconnect flushes
 * both QPs and reports DISCONNECTED on each side once. In scripted mode the synchronous part happens (the QP to
 * RTS where the CM would move it) and the test injects the events. Private data longer than the CM carries is
 * refused as librdmacm refuses it.
 */
final class ConnectionExchange {
    private final FakeCmId id;
    /** DISCONNECTED went to this id (it goes once, whoever disconnects first). */
    private boolean disconnectedSent;

    ConnectionExchange(FakeCmId id) {
        this.id = id;
    }

    void connect(ConnParam param) {
        PortSpace portSpace = id.portSpace();
        FakeFabric fabric = id.fabric;
        int limit = portSpace == PortSpace.UDP ? CmId.MAX_CONNECT_PRIVATE_DATA_UDP
                : CmId.MAX_CONNECT_PRIVATE_DATA_TCP;
        checkPrivateData("rdma_connect", param.privateData(), limit);
        FakeCmId listener;
        FakeCmId child = null;
        synchronized (fabric.lock) {
            id.check();
            id.calls.add("connect");
            if (id.phase != FakeCmId.Phase.ROUTE_RESOLVED) {
                throw new RdmaException("rdma_connect", Errno.EINVAL, "resolve the route first");
            }
            id.phase = FakeCmId.Phase.CONNECTING;
            if (!id.loopback()) {
                if (id.qp != null) {
                    id.qp.toState(QpState.RTS); // what the CM does before it reports ESTABLISHED
                }
                return;
            }
            listener = fabric.findListener(portSpace, id.peerAddress);
            if (listener != null) {
                child = new FakeCmId(fabric, listener.channel, portSpace, null);
                child.device = listener.device != null ? listener.device
                        : fabric.deviceOf(id.peerAddress.getAddress());
                child.local = id.peerAddress;
                child.peerAddress = id.local;
                child.phase = FakeCmId.Phase.REQUESTED;
                child.peer = id;
                id.peer = child;
            }
        }
        if (listener == null) {
            if (portSpace.qpType() == QpType.RC) {
                id.emit(CmEventType.REJECTED, 8, null, null, null, null);
            } else {
                id.emit(CmEventType.UNREACHABLE, 1, null, null, null, null);
            }
            return;
        }
        ConnParam conn = null;
        UdParam ud = null;
        FakeQp qp = id.qp;
        if (portSpace.qpType() == QpType.RC) {
            conn = new ConnParam(param.privateData(), param.initiatorDepth(), param.responderResources(),
                    param.flowControl(), param.retryCount(), param.rnrRetryCount(), qp != null && qp.srq() != null,
                    qp != null ? qp.qpNum() : param.qpNum());
        } else {
            ud = new UdParam(param.privateData(), AhAttr.roce(Gid.of(id.local.getAddress()), 0, 1), 0,
                    UdParam.RDMA_UDP_QKEY);
        }
        listener.channel.inject(new CmEvent(CmEventType.CONNECT_REQUEST, child, listener, 0, param.privateData(),
                conn, ud, null));
    }

    void accept(ConnParam param) {
        PortSpace portSpace = id.portSpace();
        int limit = portSpace == PortSpace.UDP ? CmId.MAX_ACCEPT_PRIVATE_DATA_UDP : CmId.MAX_ACCEPT_PRIVATE_DATA;
        checkPrivateData("rdma_accept", param.privateData(), limit);
        FakeCmId active;
        synchronized (id.fabric.lock) {
            id.check();
            id.calls.add("accept");
            if (id.phase != FakeCmId.Phase.REQUESTED) {
                throw new RdmaException("rdma_accept", Errno.EINVAL, "not a connection request");
            }
            if (portSpace.qpType() == QpType.RC && id.qp == null) {
                throw new RdmaException("rdma_accept", Errno.EINVAL, "create a QP on the id before accepting");
            }
            if (!id.loopback()) {
                id.phase = FakeCmId.Phase.CONNECTED;
                if (id.qp != null) {
                    id.qp.toState(QpState.RTS);
                }
                return;
            }
            active = id.peer;
            if (active == null || active.isClosed() || active.phase != FakeCmId.Phase.CONNECTING) {
                id.phase = FakeCmId.Phase.IDLE;
                active = null;
            } else if (portSpace.qpType() == QpType.RC) {
                if (active.qp == null) {
                    throw new RdmaException("rdma_accept", Errno.EINVAL, "the active side has no QP");
                }
                id.qp.connect(active.qp);
                id.phase = FakeCmId.Phase.CONNECTED;
                active.phase = FakeCmId.Phase.CONNECTED;
            } else {
                id.phase = FakeCmId.Phase.CONNECTED;
                active.phase = FakeCmId.Phase.CONNECTED;
            }
        }
        if (active == null) {
            id.emit(CmEventType.REJECTED, 10, null, null, null, null); // stale: the active side gave up
            return;
        }
        FakeQp qp = id.qp;
        if (portSpace.qpType() == QpType.RC) {
            ConnParam toActive = new ConnParam(param.privateData(), param.initiatorDepth(), param.responderResources(),
                    param.flowControl(), param.retryCount(), param.rnrRetryCount(), qp.srq() != null, qp.qpNum());
            active.emit(CmEventType.ESTABLISHED, 0, param.privateData(), toActive, null, null);
            id.emit(CmEventType.ESTABLISHED, 0, null, null, null, null);
        } else {
            int qpn = qp != null ? qp.qpNum() : param.qpNum();
            active.emit(CmEventType.ESTABLISHED, 0, param.privateData(), null, new UdParam(param.privateData(),
                    AhAttr.roce(id.device.gid(), 0, 1), qpn, UdParam.RDMA_UDP_QKEY), null);
        }
    }

    void reject(byte[] privateData) {
        checkPrivateData("rdma_reject", privateData, CmId.MAX_REJECT_PRIVATE_DATA);
        FakeCmId active;
        synchronized (id.fabric.lock) {
            id.check();
            id.calls.add("reject");
            if (id.phase != FakeCmId.Phase.REQUESTED) {
                throw new RdmaException("rdma_reject", Errno.EINVAL, "not a connection request");
            }
            id.phase = FakeCmId.Phase.IDLE;
            active = id.loopback() ? id.peer : null;
            if (active != null) {
                active.phase = FakeCmId.Phase.IDLE;
                active.peer = null;
            }
            id.peer = null;
        }
        if (active != null && !active.isClosed()) {
            if (id.portSpace().qpType() == QpType.RC) {
                active.emit(CmEventType.REJECTED, 28, privateData, null, null, null);
            } else {
                active.emit(CmEventType.UNREACHABLE, 2, privateData, null, null, null);
            }
        }
    }

    void disconnect() {
        id.calls.add("disconnect");
        if (!id.loopback()) {
            return;
        }
        FakeCmId other;
        synchronized (id.fabric.lock) {
            id.check();
            if (id.qp != null) {
                id.qp.flush();
            }
            if (id.phase != FakeCmId.Phase.CONNECTED) {
                return;
            }
            id.phase = FakeCmId.Phase.DISCONNECTED;
            other = id.peer;
            if (other != null && other.phase == FakeCmId.Phase.CONNECTED) {
                other.phase = FakeCmId.Phase.DISCONNECTED;
                if (other.qp != null) {
                    other.qp.flush();
                }
            } else {
                other = null;
            }
        }
        disconnected();
        if (other != null) {
            other.exchange.disconnected();
        }
    }

    /** Reports DISCONNECTED on this id, once, unless it is destroyed. */
    void disconnected() {
        synchronized (id.fabric.lock) {
            if (disconnectedSent || id.isClosed()) {
                return;
            }
            disconnectedSent = true;
        }
        id.emit(CmEventType.DISCONNECTED, 0, null, null, null, null);
    }

    private static void checkPrivateData(String verb, byte[] data, int limit) {
        if (data != null && data.length > limit) {
            throw new IllegalArgumentException(verb + " carries at most " + limit + " bytes of private data, got "
                    + data.length);
        }
    }
}
