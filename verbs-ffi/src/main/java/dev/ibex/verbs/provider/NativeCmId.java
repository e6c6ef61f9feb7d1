package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CmOption;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.verbs.ffi.CallState;
import dev.ibex.verbs.ffi.RdmaCm;
import dev.ibex.verbs.ffi.constant.RdmaOption;
import dev.ibex.verbs.ffi.struct.IbvQpAttr;
import dev.ibex.verbs.ffi.struct.IbvSaPathRec;
import dev.ibex.verbs.ffi.struct.RdmaCmId;
import dev.ibex.verbs.ffi.struct.Sockaddr;
import dev.ibex.verbs.ffi.struct.SockaddrStorage;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@code rdma_cm_id}. Its {@code context} field holds this object's {@link HandleTable} handle, which is how
 * CM events find their way back here without a map keyed by native pointers.
 *
 * <p>Closing follows the verbs order: leave every multicast group (detaching the QP), destroy the QP, then
 * {@code rdma_destroy_id}. Because the channel acknowledges each event before handing it out, the destroy never
 * waits on an unacknowledged event.
 */
final class NativeCmId extends NativeResource implements CmId {
    private static final Logger LOG = LoggerFactory.getLogger(NativeCmId.class);

    private final PortSpace portSpace;
    private final long handle;
    private final Map<InetSocketAddress, Membership> memberships = new ConcurrentHashMap<>();
    private MemorySegment id;
    private volatile NativeEventChannel channel;
    private volatile Object context;
    private volatile NativeQueuePair qp;

    private NativeCmId(NativeEventChannel channel, PortSpace portSpace, Object context) {
        super(channel.fabric);
        this.channel = channel;
        this.portSpace = portSpace;
        this.context = context;
        this.handle = fabric.handles().register(this);
    }

    /** {@code rdma_create_id} on {@code channel}. */
    static NativeCmId create(NativeEventChannel channel, PortSpace portSpace, Object context) {
        NativeCmId cmId = new NativeCmId(channel, portSpace, context);
        try {
            cmId.id = RdmaCm.createId(channel.segment(), MemorySegment.ofAddress(cmId.handle), portSpace.code());
        } catch (RuntimeException e) {
            channel.fabric.handles().release(cmId.handle);
            throw e;
        }
        cmId.opened();
        return cmId;
    }

    /** Wraps the new id of a CONNECT_REQUEST (librdmacm put it on the listener's channel). */
    static NativeCmId fromRequest(NativeEventChannel channel, MemorySegment id, PortSpace listenerSpace) {
        PortSpace ps = listenerSpace;
        try {
            ps = PortSpace.ofCode(RdmaCmId.ps(id));
        } catch (IllegalArgumentException e) {
            // keep the listener's
        }
        NativeCmId cmId = new NativeCmId(channel, ps, null);
        cmId.id = id.reinterpret(RdmaCmId.SIZE);
        cmId.id.set(ValueLayout.JAVA_LONG, RdmaCmId.OFFSET_CONTEXT, cmId.handle);
        cmId.opened();
        return cmId;
    }

    private void opened() {
        channel.attach(this);
        tracked();
    }

    MemorySegment segment() {
        return id;
    }

    /** Leaves every group (before the QP they are attached to is destroyed). */
    void leaveAll() {
        for (Membership m : new ArrayList<>(memberships.values())) {
            try {
                m.close();
            } catch (RuntimeException e) {
                LOG.debug("leaving {} failed: {}", m.group(), e.toString());
                m.abandon();
            }
        }
    }

    void forget(Membership m) {
        memberships.remove(m.group(), m);
    }

    void qpDestroyed(NativeQueuePair q) {
        if (qp == q) {
            qp = null;
        }
    }

    @Override
    String describe() {
        return "CM id (" + portSpace + ")";
    }

    @Override
    public EventChannel channel() {
        return channel;
    }

    @Override
    public PortSpace portSpace() {
        return portSpace;
    }

    @Override
    public QpType qpType() {
        return portSpace.qpType();
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    @Override
    public void setOption(CmOption option, int value) {
        ensureOpen();
        if (option == null) {
            throw new IllegalArgumentException("option is required");
        }
        switch (option) {
            case TOS -> RdmaCm.setByteOption(id, RdmaOption.RDMA_OPTION_ID, RdmaOption.RDMA_OPTION_ID_TOS, value);
            case REUSEADDR -> RdmaCm.setIntOption(id, RdmaOption.RDMA_OPTION_ID, RdmaOption.RDMA_OPTION_ID_REUSEADDR, value);
            case AFONLY -> RdmaCm.setIntOption(id, RdmaOption.RDMA_OPTION_ID, RdmaOption.RDMA_OPTION_ID_AFONLY, value);
            case ACK_TIMEOUT -> RdmaCm.setByteOption(id, RdmaOption.RDMA_OPTION_ID,
                    RdmaOption.RDMA_OPTION_ID_ACK_TIMEOUT, value);
        }
    }

    @Override
    public void bind(InetSocketAddress address) {
        ensureOpen();
        requireResolved(address, "address");
        RdmaCm.bindAddr(id, sockaddr(CallState.current().structs(), address));
    }

    @Override
    public void resolveAddr(InetSocketAddress source, InetSocketAddress destination, int timeoutMs) {
        ensureOpen();
        requireResolved(destination, "destination");
        if (source != null) {
            requireResolved(source, "source");
        }
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be positive, got " + timeoutMs);
        }
        SegmentAllocator structs = CallState.current().structs();
        MemorySegment src = source == null ? MemorySegment.NULL : sockaddr(structs, source);
        RdmaCm.resolveAddr(id, src, sockaddr(structs, destination), timeoutMs);
    }

    @Override
    public void resolveRoute(int timeoutMs) {
        ensureOpen();
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be positive, got " + timeoutMs);
        }
        RdmaCm.resolveRoute(id, timeoutMs);
    }

    @Override
    public void listen(int backlog) {
        ensureOpen();
        if (backlog < 0) {
            throw new IllegalArgumentException("backlog must not be negative, got " + backlog);
        }
        RdmaCm.listen(id, backlog);
    }

    @Override
    public void connect(ConnParam param) {
        ensureOpen();
        if (param != null) {
            PrivateDataLimits.checkConnect(portSpace, param.privateData().length);
        }
        RdmaCm.connect(id, param == null ? MemorySegment.NULL
                : ConnParamCodec.write(param, CallState.current().structs()));
    }

    @Override
    public void accept(ConnParam param) {
        ensureOpen();
        if (param != null) {
            PrivateDataLimits.checkAccept(portSpace, param.privateData().length);
        }
        RdmaCm.accept(id, param == null ? MemorySegment.NULL
                : ConnParamCodec.write(param, CallState.current().structs()));
    }

    @Override
    public void reject(byte[] privateData) {
        ensureOpen();
        byte[] data = privateData == null ? new byte[0] : privateData;
        PrivateDataLimits.checkReject(portSpace, data.length);
        MemorySegment d = MemorySegment.NULL;
        if (data.length > 0) {
            d = CallState.current().structs().allocate(data.length);
            MemorySegment.copy(data, 0, d, ValueLayout.JAVA_BYTE, 0, data.length);
        }
        RdmaCm.reject(id, d);
    }

    @Override
    public void disconnect() {
        ensureOpen();
        RdmaCm.disconnect(id);
    }

    @Override
    public void establish() {
        ensureOpen();
        RdmaCm.establish(id);
    }

    @Override
    public void notify(AsyncEventType event) {
        ensureOpen();
        if (event == null) {
            throw new IllegalArgumentException("event is required");
        }
        RdmaCm.notify(id, event.code());
    }

    @Override
    public void joinMulticast(InetSocketAddress group, boolean sendOnly, Object context) {
        ensureOpen();
        requireResolved(group, "group");
        if (!group.getAddress().isMulticastAddress()) {
            throw new IllegalArgumentException(group.getAddress().getHostAddress() + " is not a multicast address");
        }
        if (!PrivateDataLimits.isDatagram(portSpace)) {
            throw new IllegalArgumentException("multicast needs a UDP or IPoIB id, this one is " + portSpace);
        }
        Membership m = new Membership(this, group, sendOnly, context);
        if (memberships.putIfAbsent(group, m) != null) {
            m.abandon();
            throw new IllegalStateException("already a member of " + group);
        }
        try {
            m.join();
        } catch (RuntimeException e) {
            memberships.remove(group, m);
            m.abandon();
            throw e;
        }
    }

    @Override
    public void leaveMulticast(InetSocketAddress group) {
        ensureOpen();
        Membership m = group == null ? null : memberships.get(group);
        if (m == null) {
            throw new IllegalArgumentException("not a member of " + group);
        }
        m.close();
    }

    @Override
    public void migrate(EventChannel target) {
        ensureOpen();
        if (!(target instanceof NativeEventChannel to) || to.fabric != fabric) {
            throw new IllegalArgumentException("the target channel belongs to another provider or fabric");
        }
        to.ensureOpen();
        NativeEventChannel from = channel;
        if (from == to) {
            return;
        }
        RdmaCm.migrateId(id, to.segment());
        from.detach(this);
        to.attach(this);
        channel = to;
    }

    @Override
    public DeviceContext device() {
        ensureOpen();
        return fabric.deviceFor(RdmaCmId.verbs(id));
    }

    NativeDeviceContext nativeDevice() {
        return fabric.deviceFor(RdmaCmId.verbs(id));
    }

    @Override
    public int portNum() {
        ensureOpen();
        return RdmaCmId.portNum(id);
    }

    @Override
    public PathRecord route() {
        ensureOpen();
        MemorySegment path = RdmaCmId.pathRec(id);
        if (path.address() == 0 || RdmaCmId.numPaths(id) < 1) {
            return null;
        }
        PathRecord r = PathRecordCodec.read(path.reinterpret(IbvSaPathRec.SIZE));
        NativeDeviceContext device = nativeDevice();
        int port = RdmaCmId.portNum(id);
        if (device != null && port > 0
                && device.queryPort(port).linkLayer() == PortAttributes.LINK_LAYER_ETHERNET) {
            // RoCE has no LIDs; Linux 6.1 copies MAC bytes of its RoCE path record into the LID fields
            r = new PathRecord(r.sgid(), r.dgid(), 0, 0, r.flowLabel(), r.hopLimit(), r.trafficClass(), r.pkey(),
                    r.sl(), r.mtu(), r.rate(), r.packetLifeTime());
        }
        return r;
    }

    @Override
    public QpAttr initQpAttr(QpState state) {
        ensureOpen();
        if (state == null) {
            throw new IllegalArgumentException("state is required");
        }
        MemorySegment a = CallState.current().structs().allocate(IbvQpAttr.LAYOUT);
        IbvQpAttr.qpState(a, state.code());
        int mask = RdmaCm.initQpAttr(id, a);
        return QpAttrCodec.read(a, mask);
    }

    @Override
    public QueuePair createQp(ProtectionDomain pd, QpInitAttr attr) {
        ensureOpen();
        if (!(pd instanceof NativeProtectionDomain npd) || npd.fabric != fabric) {
            throw new IllegalArgumentException("the PD belongs to another provider or fabric");
        }
        if (attr == null) {
            throw new IllegalArgumentException("attr is required");
        }
        NativeDeviceContext device = nativeDevice();
        if (device == null) {
            throw new IllegalStateException("the id is not bound to a device yet: bind, resolve the address or "
                    + "take it from a connect request first");
        }
        if (npd.deviceContext() != device) {
            throw new IllegalArgumentException("the PD is on " + npd.device().device().name() + " but the id is bound to "
                    + device.device().name());
        }
        if (qp != null) {
            throw new IllegalStateException("the id already has a QP");
        }
        NativeQueuePair q = NativeQueuePair.createOnId(this, npd, attr);
        qp = q;
        return q;
    }

    @Override
    public QueuePair qp() {
        return qp;
    }

    @Override
    public void destroyQp() {
        NativeQueuePair q = qp;
        if (q != null) {
            q.close();
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        ensureOpen();
        return Sockaddr.read(RdmaCmId.srcAddr(id));
    }

    @Override
    public InetSocketAddress peerAddress() {
        ensureOpen();
        return Sockaddr.read(RdmaCmId.dstAddr(id));
    }

    @Override
    void destroy() {
        leaveAll();
        memberships.clear();
        destroyQp();
        RdmaCm.destroyId(id);
        fabric.handles().release(handle);
        channel.detach(this);
    }

    static MemorySegment sockaddr(SegmentAllocator arena, InetSocketAddress address) {
        MemorySegment s = arena.allocate(SockaddrStorage.LAYOUT);
        Sockaddr.write(s, address);
        return s;
    }

    private static void requireResolved(InetSocketAddress a, String what) {
        if (a == null) {
            throw new IllegalArgumentException(what + " is required");
        }
        if (a.isUnresolved()) {
            throw new IllegalArgumentException(what + " " + a + " is unresolved");
        }
    }
}
