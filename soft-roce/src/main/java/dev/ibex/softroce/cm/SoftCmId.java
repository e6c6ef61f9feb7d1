package dev.ibex.softroce.cm;

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
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.softroce.mad.CmRejectReason;
import dev.ibex.softroce.mad.PrivateDataLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RDMA CM id of the soft provider: the kernel's {@code cma.c} (states, port spaces, address and route
 * resolution, IB CM event mapping) together with librdmacm's share of the work ({@code rdma_create_qp} moving the
 * QP to INIT, RTR/RTS + RTU on a REP, QP→ERR on REJECTED and disconnect, attaching the QP when the application takes
 * MULTICAST_JOIN, the CONNECT_REQUEST backlog). Events are copied records on the id's {@link SoftEventChannel}.
 *
 * <p>This class is the {@link CmId} facade: it checks arguments, takes the service's lock and hands each verb to
 * the part that does it, read by concept as {@code cma.c} is: {@link CmAddress} (bind, address and route
 * resolution), {@link CmListener} (listen and the CONNECT_REQUEST backlog), {@link CmHandshake} (connect, accept,
 * reject, disconnect and the IB CM's events), {@link CmSidr} (the same for UD ids), {@link CmQpDriver} (the QP) and
 * {@link CmMulticast} (joins). It keeps the state they share (RDMA CM state, addresses, device, route, IB CM id,
 * options), the channel, and teardown.
 *
 * <p>All state lives under the service's lock; methods may be called from any thread.
 */
public final class SoftCmId implements CmId {
    /** The log of every part of the id (one category, as before the split). */
    static final Logger LOG = LoggerFactory.getLogger(SoftCmId.class);
    static final int ETIMEDOUT = 110;

    final RdmaCm svc;
    final PortSpace ps;
    final QpType qpType;
    SoftEventChannel channel;
    private volatile Object context;

    RdmaCmState state = RdmaCmState.IDLE;
    boolean closed;
    CmDevice device;
    InetSocketAddress src;
    InetSocketAddress dst;
    boolean reuseAddr;
    boolean afOnly;
    boolean afOnlySet;
    int tos = -1;
    int ackTimeout = -1;
    PathRecord route;
    IbCmId ibId;
    final int seqNum;
    int qkey;
    /** The listener whose CONNECT_REQUEST made this id, or {@code null}. */
    SoftCmId listener;

    final CmAddress address;
    final CmListener listening;
    final CmHandshake handshake;
    final CmSidr sidr;
    final CmQpDriver qps;
    final CmMulticast multicast;

    SoftCmId(RdmaCm svc, SoftEventChannel channel, PortSpace ps, Object context) {
        this.svc = svc;
        this.channel = channel;
        this.ps = ps;
        this.qpType = ps.qpType();
        this.context = context;
        this.seqNum = svc.ibCm.randomPsn();
        this.qkey = qpType == QpType.UD ? UdParam.RDMA_UDP_QKEY : 0;
        this.address = new CmAddress(this);
        this.listening = new CmListener(this);
        this.handshake = new CmHandshake(this);
        this.sidr = new CmSidr(this);
        this.qps = new CmQpDriver(this);
        this.multicast = new CmMulticast(this);
    }

    // ------------------------------------------------------------------------------------------------ accessors

    @Override
    public EventChannel channel() {
        return svc.locked(() -> channel);
    }

    SoftEventChannel channelRef() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return ps;
    }

    @Override
    public QpType qpType() {
        return qpType;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    /** The RDMA CM state (diagnostics and tests). */
    public RdmaCmState state() {
        return svc.locked(() -> state);
    }

    /** The IB CM id below, or {@code null} (diagnostics and tests). */
    public IbCmId ibCmId() {
        return svc.locked(() -> ibId);
    }

    @Override
    public DeviceContext device() {
        return svc.locked(() -> device == null ? null : device.context());
    }

    CmDevice cmDevice() {
        return device;
    }

    @Override
    public int portNum() {
        return svc.locked(() -> device == null ? 0 : device.portNum());
    }

    @Override
    public PathRecord route() {
        return svc.locked(() -> route);
    }

    @Override
    public QueuePair qp() {
        return svc.locked(() -> qps.qp());
    }

    @Override
    public InetSocketAddress localAddress() {
        return svc.locked(() -> src);
    }

    @Override
    public InetSocketAddress peerAddress() {
        return svc.locked(() -> dst);
    }

    PortSpace portSpaceRef() {
        return ps;
    }

    InetAddress boundAddress() {
        return src.getAddress();
    }

    boolean reuseAddr() {
        return reuseAddr;
    }

    boolean afOnly() {
        return afOnly;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the CM id is closed");
        }
    }

    static RdmaException invalid(String verb, String why) {
        return new RdmaException(verb, Errno.EINVAL, why);
    }

    String stateWhy() {
        return "not allowed in state " + state;
    }

    // ------------------------------------------------------------------------------------------------ options

    @Override
    public void setOption(CmOption option, int value) {
        if (option == null) {
            throw new IllegalArgumentException("option is required");
        }
        switch (option) {
            case TOS, ACK_TIMEOUT -> {
                int max = option == CmOption.TOS ? 255 : 31;
                if (value < 0 || value > max) {
                    throw new IllegalArgumentException(option + " must be within 0.." + max + ", got " + value);
                }
            }
            default -> {
            }
        }
        svc.locked(() -> {
            checkOpen();
            switch (option) {
                case TOS -> tos = value;
                case REUSEADDR -> {
                    boolean reuse = value != 0;
                    if ((reuse && state != RdmaCmState.LISTEN) || state == RdmaCmState.IDLE) {
                        reuseAddr = reuse;
                    } else {
                        throw invalid("rdma_set_option", "REUSEADDR " + stateWhy());
                    }
                }
                case AFONLY -> {
                    if (state != RdmaCmState.IDLE && state != RdmaCmState.ADDR_BOUND) {
                        throw invalid("rdma_set_option", "AFONLY " + stateWhy());
                    }
                    afOnly = value != 0;
                    afOnlySet = true;
                }
                case ACK_TIMEOUT -> {
                    if (qpType != QpType.RC) {
                        throw invalid("rdma_set_option", "ACK_TIMEOUT applies to RC ids only");
                    }
                    ackTimeout = value;
                }
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ addresses

    @Override
    public void bind(InetSocketAddress address) {
        CmAddress.check(address, "address");
        svc.locked(() -> {
            checkOpen();
            this.address.bindAddr(address);
        });
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        CmAddress.check(destination, "destination");
        if (source != null) {
            CmAddress.check(source, "source");
        }
        svc.locked(() -> {
            checkOpen();
            address.resolveAddr(source, destination, timeoutMs);
        });
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        svc.locked(() -> {
            checkOpen();
            address.resolveRoute(timeoutMs);
        });
    }

    // ------------------------------------------------------------------------------------------------ listen

    @Override
    public void listen(int backlog) {
        svc.locked(() -> {
            checkOpen();
            listening.listen(backlog);
        });
    }

    /** librdmacm's share of {@code rdma_get_cm_event}. */
    CmEvent delivered(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST) {
            listening.requestLeft();
            return e;
        }
        return multicast.delivered(e);
    }

    // ------------------------------------------------------------------------------------------------ connect

    @Override
    public void connect(ConnParam param) {
        if (param != null) {
            PrivateDataLimits.checkConnect(wirePs(), param.privateData().length);
        }
        svc.locked(() -> {
            checkOpen();
            handshake.connect(param);
        });
    }

    /** The wire module's view of the port space, for the private-data limits. */
    private dev.ibex.softroce.mad.PortSpace wirePs() {
        return dev.ibex.softroce.mad.PortSpace.of(ps.code());
    }

    @Override
    public void accept(ConnParam param) {
        if (param != null) {
            PrivateDataLimits.checkAccept(wirePs(), param.privateData().length);
        }
        svc.locked(() -> {
            checkOpen();
            handshake.accept(param);
        });
    }

    @Override
    public void reject(byte[] privateData) {
        reject(privateData, CmRejectReason.CONSUMER_DEFINED.code());
    }

    /** As the kernel's {@code ib_send_cm_rej}: any IB CM reason (librdmacm only ever sends 28). */
    @Override
    public void reject(byte[] privateData, int ibRejectReason) {
        CmRejectReason reason = CmRejectReason.of(ibRejectReason);
        if (reason == null) {
            throw new IllegalArgumentException("no IB CM reject reason " + ibRejectReason);
        }
        byte[] data = privateData == null ? new byte[0] : privateData;
        PrivateDataLimits.checkReject(wirePs(), data.length);
        svc.locked(() -> {
            checkOpen();
            handshake.reject(data, reason);
        });
    }

    @Override
    public void disconnect() {
        svc.locked(() -> {
            checkOpen();
            handshake.disconnect();
        });
    }

    @Override
    public void establish() {
        svc.locked(() -> {
            checkOpen();
            handshake.establish();
        });
    }

    @Override
    public void notify(AsyncEventType event) {
        if (event == null) {
            throw new IllegalArgumentException("event is required");
        }
        svc.locked(() -> {
            checkOpen();
            handshake.notify(event);
        });
    }

    // ------------------------------------------------------------------------------------------------ QP

    @Override
    public QpAttr initQpAttr(QpState target) {
        if (target == null) {
            throw new IllegalArgumentException("state is required");
        }
        return svc.locked(() -> {
            checkOpen();
            return qps.initQpAttr(target);
        });
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        if (pd == null || attr == null) {
            throw new IllegalArgumentException("pd and attr are required");
        }
        return svc.locked(() -> {
            checkOpen();
            return qps.create(pd, attr);
        });
    }

    @Override
    public void destroyQp() {
        svc.locked(() -> {
            checkOpen();
            qps.destroy();
        });
    }

    // ------------------------------------------------------------------------------------------------ multicast

    @Override
    public void joinMulticast(InetSocketAddress group, boolean sendOnly, Object context) {
        CmAddress.check(group, "group");
        svc.locked(() -> {
            checkOpen();
            multicast.join(group, sendOnly, context);
        });
    }

    @Override
    public void leaveMulticast(InetSocketAddress group) {
        CmAddress.check(group, "group");
        svc.locked(() -> {
            checkOpen();
            multicast.leave(group);
        });
    }

    /** Detaches (if attached), cancels a join in progress, drops its undelivered event. */
    void leave(McMembership m) {
        multicast.leave(m);
    }

    // ------------------------------------------------------------------------------------------------ channel

    @Override
    public void migrate(EventChannel target) {
        if (!(target instanceof SoftEventChannel to) || to.service() != svc) {
            throw new IllegalArgumentException("the channel belongs to another fabric");
        }
        if (to.isClosed()) {
            throw new IllegalStateException("the target channel is closed");
        }
        svc.locked(() -> {
            checkOpen();
            if (to == channel) {
                return;
            }
            // The id's events, and requests not yet taken (their new ids follow their listener, events and all).
            java.util.Set<CmId> movers = new java.util.HashSet<>();
            movers.add(this);
            for (CmEvent e : channel.snapshot()) {
                if (e.listenId() == this) {
                    movers.add(e.id());
                }
            }
            List<CmEvent> moved = channel.remove(e -> movers.contains(e.id()) || e.listenId() == this);
            for (CmId m : movers) {
                if (m instanceof SoftCmId conn && conn != this) {
                    conn.channel = to;
                }
            }
            channel = to;
            to.enqueueAll(moved);
        });
    }

    // ------------------------------------------------------------------------------------------------ teardown

    /** The device went away. */
    void deviceRemoved() {
        if (closed || state == RdmaCmState.DEVICE_REMOVAL) {
            return;
        }
        state = RdmaCmState.DEVICE_REMOVAL;
        address.cancel();
        emit(CmEventType.DEVICE_REMOVAL, 0);
    }

    /** Its address moved to another hardware address (a bonding failover): a hint, the id's state stays. */
    boolean addressChanged() {
        if (closed || state == RdmaCmState.DEVICE_REMOVAL) {
            return false;
        }
        emit(CmEventType.ADDR_CHANGE, 0);
        return true;
    }

    @Override
    public void close() {
        svc.locked(() -> {
            if (closed) {
                return;
            }
            closed = true;
            state = RdmaCmState.DESTROYING;
            address.cancel();
            multicast.leaveAll();
            qps.close();
            if (ibId != null) {
                ibId.destroy(); // REJ, DREQ, DREP or SIDR_REP as the IB CM state requires
                ibId = null;
            }
            address.release();
            List<CmEvent> dropped = channel.remove(e -> e.id() == this || e.listenId() == this);
            svc.forget(this);
            for (CmEvent e : dropped) {
                if (e.type() == CmEventType.CONNECT_REQUEST) {
                    if (e.listenId() == this) {
                        ((SoftCmId) e.id()).close(); // a request nobody will take: rejected
                    } else if (listener != null) {
                        listener.listening.requestLeft();
                    }
                }
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ events

    void emit(CmEventType type, int status) {
        emit(type, status, null, null, null, null);
    }

    void emit(CmEventType type, int status, byte[] privateData, ConnParam conn, UdParam ud, Object ctx) {
        channel.enqueue(new CmEvent(type, this, null, status, privateData, conn, ud, ctx));
    }

    @Override
    public String toString() {
        return "SoftCmId[" + ps + " " + state + (src != null ? " " + src : "") + (dst != null ? " -> " + dst : "")
                + "]";
    }
}
