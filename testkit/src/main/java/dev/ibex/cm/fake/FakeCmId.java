package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CmOption;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A CM id. Every call is recorded ({@link #calls()}). In loopback mode ids of the same fabric resolve, connect
 * (REQ → CONNECT_REQUEST at the listener, REJECTED 8 when nobody listens), accept (ESTABLISHED on both sides,
 * SIDR answer for UDP ids), reject (REJECTED 28 / UNREACHABLE 2), disconnect (QPs to ERR, DISCONNECTED on both
 * sides) and join multicast groups; in scripted mode the synchronous part happens and the test injects events.
 *
 * <p>This class holds the id's addresses, route, phase and QP, and its resolution and listening; its parts are the
 * connection exchange with the peer id ({@link ConnectionExchange}) and the multicast groups joined
 * ({@link MulticastJoins}).
 */
public final class FakeCmId implements CmId {
    enum Phase { IDLE, BOUND, ADDR_RESOLVED, ROUTE_RESOLVED, LISTENING, CONNECTING, REQUESTED, CONNECTED, DISCONNECTED }

    private static final InetSocketAddress NONE = new InetSocketAddress(FakeFabric.address("0.0.0.0"), 0);

    final FakeFabric fabric;
    volatile FakeEventChannel channel;
    private final PortSpace portSpace;
    private volatile Object context;
    final List<String> calls = new CopyOnWriteArrayList<>();
    Phase phase = Phase.IDLE;
    FakeDevice device;
    InetSocketAddress local = NONE;
    InetSocketAddress peerAddress = NONE;
    private PathRecord route;
    FakeQp qp;
    FakeCmId peer;
    private volatile boolean closed;
    // the id's parts, one of each per id
    final ConnectionExchange exchange = new ConnectionExchange(this);
    private final MulticastJoins multicast = new MulticastJoins(this);

    FakeCmId(FakeFabric fabric, FakeEventChannel channel, PortSpace portSpace, Object context) {
        this.fabric = fabric;
        this.channel = channel;
        this.portSpace = portSpace;
        this.context = context;
        channel.ids.add(this);
        fabric.tracker.opened(this);
    }

    boolean loopback() {
        return fabric.mode == FakeFabric.Mode.LOOPBACK;
    }

    void check() {
        if (closed) {
            throw new IllegalStateException("CM id is destroyed");
        }
    }

    void emit(CmEventType type, int status, byte[] pd, ConnParam conn, UdParam ud, Object ctx) {
        channel.inject(new CmEvent(type, this, null, status, pd, conn, ud, ctx));
    }

    /**
     * Injects an event for this id on its current channel (scripted tests).
     *
     * @param type the event type
     * @param status the event's status: 0, a negative errno, or a CM reject reason for {@code REJECTED}
     * @param privateData the private data the event carries, or {@code null}
     */
    public void inject(CmEventType type, int status, byte[] privateData) {
        emit(type, status, privateData, null, null, null);
    }

    /**
     * Injects an event carrying UD parameters (SIDR answers, multicast joins).
     *
     * @param type the event type
     * @param status the event's status: 0 or a negative errno
     * @param ud the UD parameters (remote QPN, Q_Key, address handle attributes); their private data becomes the
     *     event's; {@code null} for none
     * @param ctx the user context of a multicast join event, or {@code null}
     */
    public void inject(CmEventType type, int status, UdParam ud, Object ctx) {
        emit(type, status, ud == null ? null : ud.privateData(), null, ud, ctx);
    }

    /**
     * Scripted passive side: a connection request for this listening id arrives, with a new id on the listener's
     * channel already bound to the device.
     *
     * @param privateData the private data of the request, or {@code null}
     * @param from the requester's address, as the new id's peer address
     * @return the new id the {@code CONNECT_REQUEST} event carries, to accept or reject
     */
    public FakeCmId injectRequest(byte[] privateData, InetSocketAddress from) {
        FakeCmId child;
        synchronized (fabric.lock) {
            child = new FakeCmId(fabric, channel, portSpace, null);
            child.device = device != null ? device : fabric.device(0);
            child.local = new InetSocketAddress(child.device.ip(), local.getPort());
            child.peerAddress = from;
            child.phase = Phase.REQUESTED;
        }
        ConnParam conn = portSpace.qpType() == QpType.RC ? ConnParam.DEFAULT.withPrivateData(privateData) : null;
        UdParam ud = portSpace.qpType() == QpType.UD ? new UdParam(privateData, null, 0, UdParam.RDMA_UDP_QKEY) : null;
        channel.inject(new CmEvent(CmEventType.CONNECT_REQUEST, child, this, 0, privateData, conn, ud, null));
        return child;
    }

    void requested(FakeDevice d) {
        synchronized (fabric.lock) {
            device = d;
            local = new InetSocketAddress(d.ip(), fabric.nextPort++);
            peerAddress = new InetSocketAddress(fabric.device(fabric.devices().size() - 1).ip(), 5000);
            phase = Phase.REQUESTED;
        }
    }

    /**
     * What was called on this id, in order ("connect", "accept", "disconnect" …).
     *
     * @return a snapshot of the recorded call names
     */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    /** {@return whether the id has been destroyed} */
    public boolean isClosed() {
        return closed;
    }

    /** {@return the id on the other end of a request or connection, or {@code null} before there is one} */
    public FakeCmId peer() {
        synchronized (fabric.lock) {
            return peer;
        }
    }

    /** {@return the channel this id's events go to now (it changes when the id is migrated)} */
    public FakeEventChannel currentChannel() {
        return channel;
    }

    FakeQp qpRef() {
        return qp;
    }

    void forgetQp() {
        qp = null;
    }

    // ---- CmId ----

    @Override public EventChannel channel() { return channel; }
    @Override public PortSpace portSpace() { return portSpace; }
    @Override public QpType qpType() { return portSpace.qpType(); }
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }

    @Override
    public void setOption(CmOption option, int value) {
        check();
        calls.add("setOption " + option + " " + value);
    }

    @Override
    public void bind(InetSocketAddress address) {
        synchronized (fabric.lock) {
            check();
            calls.add("bind " + address);
            InetAddress ip = address.getAddress();
            FakeDevice d = ip.isAnyLocalAddress() ? null : fabric.deviceOf(ip);
            if (d == null && !ip.isAnyLocalAddress()) {
                throw new RdmaException("rdma_bind_addr", Errno.EADDRNOTAVAIL, ip.getHostAddress()
                        + " is not an address of an RDMA device");
            }
            device = d;
            local = new InetSocketAddress(ip, address.getPort() == 0 ? fabric.nextPort++ : address.getPort());
            phase = Phase.BOUND;
        }
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        boolean answer;
        boolean ok;
        synchronized (fabric.lock) {
            check();
            calls.add("resolveAddr " + destination);
            RuntimeException refusal = fabric.resolveAddrRefusal;
            if (refusal != null) {
                throw refusal;
            }
            if (source != null) {
                FakeDevice s = fabric.deviceOf(source.getAddress());
                if (s == null) {
                    throw new RdmaException("rdma_resolve_addr", Errno.EADDRNOTAVAIL, source.getAddress()
                            + " is not an address of an RDMA device");
                }
                device = s;
            }
            InetAddress dst = destination.getAddress();
            FakeDevice target = fabric.deviceOf(dst);
            ok = target != null || dst.isMulticastAddress();
            if (device == null) {
                device = target != null ? target : fabric.device(0);
            }
            local = new InetSocketAddress(device.ip(), local.getPort() != 0 ? local.getPort() : fabric.nextPort++);
            peerAddress = destination;
            phase = Phase.ADDR_RESOLVED;
            answer = loopback() && !fabric.blackholed.contains(dst);
        }
        if (answer) {
            emit(ok ? CmEventType.ADDR_RESOLVED : CmEventType.ADDR_ERROR, ok ? 0 : -Errno.ETIMEDOUT.number(), null,
                    null, null, null);
        }
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        synchronized (fabric.lock) {
            check();
            calls.add("resolveRoute");
            if (device == null) {
                throw new RdmaException("rdma_resolve_route", Errno.EINVAL, "resolve the address first");
            }
            route = new PathRecord(Gid.of(local.getAddress()), Gid.of(peerAddress.getAddress()), 0, 0, 0, 64, 0,
                    0xFFFF, 0, Mtu.MTU_1024, 3, 16);
            phase = Phase.ROUTE_RESOLVED;
        }
        if (loopback()) {
            emit(CmEventType.ROUTE_RESOLVED, 0, null, null, null, null);
        }
    }

    @Override
    public void listen(int backlog) {
        synchronized (fabric.lock) {
            check();
            calls.add("listen");
            if (phase != Phase.BOUND) {
                throw new RdmaException("rdma_listen", Errno.EINVAL, "bind first");
            }
            String key = FakeFabric.listenKey(portSpace, local.getPort());
            List<FakeCmId> same = fabric.listeners.computeIfAbsent(key, k -> new ArrayList<>());
            for (FakeCmId other : same) {
                InetAddress o = other.local.getAddress();
                if (o.isAnyLocalAddress() || local.getAddress().isAnyLocalAddress() || o.equals(local.getAddress())) {
                    throw new RdmaException("rdma_listen", Errno.EADDRINUSE, "port " + local.getPort() + " is taken");
                }
            }
            same.add(this);
            phase = Phase.LISTENING;
        }
    }

    @Override
    public void connect(ConnParam param) {
        exchange.connect(param);
    }

    @Override
    public void accept(ConnParam param) {
        exchange.accept(param);
    }

    @Override
    public void reject(byte[] privateData) {
        exchange.reject(privateData);
    }

    @Override
    public void disconnect() {
        exchange.disconnect();
    }

    @Override
    public void establish() {
        check();
        calls.add("establish");
    }

    @Override
    public void notify(AsyncEventType event) {
        check();
        calls.add("notify " + event);
    }

    @Override
    public void joinMulticast(InetSocketAddress group, boolean sendOnly, Object ctx) {
        multicast.join(group, sendOnly, ctx);
    }

    @Override
    public void leaveMulticast(InetSocketAddress group) {
        multicast.leave(group);
    }

    /** {@return how many multicast groups this id joined and has not left} */
    public int joinedGroups() {
        synchronized (fabric.lock) {
            return multicast.count();
        }
    }

    @Override
    public void migrate(EventChannel to) {
        check();
        calls.add("migrate");
        FakeEventChannel old = channel;
        FakeEventChannel target = (FakeEventChannel) to;
        old.ids.remove(this);
        target.ids.add(this);
        channel = target;
        old.moveEvents(this, target);
    }

    @Override
    public DeviceContext device() {
        return device;
    }

    @Override
    public int portNum() {
        return device != null ? 1 : 0;
    }

    @Override
    public PathRecord route() {
        return route;
    }

    @Override
    public QpAttr initQpAttr(QpState state) {
        check();
        QpAttr a = new QpAttr().state(state);
        if (portSpace.qpType() == QpType.UD) {
            a.qkey(UdParam.RDMA_UDP_QKEY);
        }
        return a;
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        FakeQp q;
        synchronized (fabric.lock) {
            check();
            calls.add("createQp");
            if (device == null || pd.device() != device) {
                throw new RdmaException("rdma_create_qp", Errno.EINVAL, "the PD belongs to another device than the id");
            }
            if (qp != null) {
                throw new RdmaException("rdma_create_qp", Errno.EEXIST, "the id already has a QP");
            }
        }
        q = FakeQp.create((FakePd) pd, attr, this);
        synchronized (fabric.lock) {
            q.toState(attr.type() == QpType.UD ? QpState.RTS : QpState.INIT);
            qp = q;
            multicast.attach(q);
        }
        return q;
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public void destroyQp() {
        FakeQp q = qp;
        if (q != null) {
            q.close();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peerAddress;
    }

    @Override
    public void close() {
        FakeCmId notifyPeer = null;
        CmEventType peerEvent = null;
        int peerStatus = 0;
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            calls.add("close");
            multicast.drop(qp);
            if (loopback() && peer != null && !peer.closed) {
                if (phase == Phase.CONNECTED && peer.phase == Phase.CONNECTED) {
                    peer.phase = Phase.DISCONNECTED;
                    if (peer.qp != null) {
                        peer.qp.flush();
                    }
                    notifyPeer = peer;
                    peerEvent = CmEventType.DISCONNECTED;
                } else if (phase == Phase.CONNECTING && peer.phase == Phase.REQUESTED) {
                    notifyPeer = peer;
                    peerEvent = CmEventType.REJECTED;
                    peerStatus = 4; // destroying a REQ_SENT id sends REJ(timeout)
                } else if (phase == Phase.REQUESTED && peer.phase == Phase.CONNECTING) {
                    peer.phase = Phase.IDLE;
                    notifyPeer = peer;
                    peerEvent = CmEventType.REJECTED;
                    peerStatus = 28; // destroying a REQ_RCVD id sends REJ(consumer defined)
                }
            }
            if (qp != null) {
                qp.close();
            }
            List<FakeCmId> l = fabric.listeners.get(FakeFabric.listenKey(portSpace, local.getPort()));
            if (l != null) {
                l.remove(this);
            }
            closed = true;
            channel.ids.remove(this);
        }
        if (notifyPeer != null) {
            if (peerEvent == CmEventType.DISCONNECTED) {
                notifyPeer.exchange.disconnected();
            } else {
                notifyPeer.emit(peerEvent, peerStatus, null, null, null, null);
            }
        }
        fabric.tracker.closed(this);
    }

    @Override
    public String toString() {
        return "FakeCmId[" + portSpace + " " + phase + " " + local + "]";
    }
}
