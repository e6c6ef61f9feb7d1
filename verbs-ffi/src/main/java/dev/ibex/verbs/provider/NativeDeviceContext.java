package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AsyncEventSource;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Device;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.verbs.ffi.ContextOps;
import dev.ibex.verbs.ffi.Devices;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.IbvDevice;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttr;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttrEx;
import dev.ibex.verbs.ffi.struct.IbvGid;
import dev.ibex.verbs.ffi.struct.IbvPortAttr;
import dev.ibex.verbs.ffi.struct.IbvTmCaps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An opened device ({@code struct ibv_context}) that librdmacm opened and shares with its ids. Holds the
 * data-path function pointers ({@link ContextOps}) every CQ, QP and SRQ on it uses, and the device's single
 * async-event source.
 *
 * <p><b>APM.</b> {@link DeviceAttributes#supportsAutoPathMigration()} reports the device's
 * {@code IBV_DEVICE_AUTO_PATH_MIG} flag as is. Linux rxe (Soft-RoCE) sets the flag, yet the kernel refuses an
 * alternate path on any RoCE device: {@code ibv_modify_qp} with {@code IBV_QP_ALT_PATH} fails with EINVAL
 * (checked in the Soft-RoCE VM, Linux 6.1), so no PATH_MIG/PATH_MIG_ERR ever comes; most RoCE NICs do not set it. The provider does not fake migration: applications that need failover on such
 * devices must reconnect.
 */
final class NativeDeviceContext extends NativeResource implements DeviceContext {
    private final MemorySegment context;
    private final ContextOps ops;
    private final Device device;
    private final NativeAsyncEvents asyncEvents;

    NativeDeviceContext(NativeFabric fabric, MemorySegment context) {
        super(fabric);
        this.context = context.reinterpret(IbvContext.SIZE);
        this.ops = ContextOps.of(this.context);
        MemorySegment dev = IbvContext.device(this.context);
        this.device = new Device(IbvDevice.name(dev), Devices.getDeviceGuid(dev), nodeType(IbvDevice.nodeType(dev)),
                transport(IbvDevice.transportType(dev)));
        this.asyncEvents = new NativeAsyncEvents(this);
        tracked();
    }

    static Device.NodeType nodeType(int code) {
        Device.NodeType[] v = Device.NodeType.values();
        return code >= 1 && code < v.length ? v[code] : Device.NodeType.UNKNOWN;
    }

    static Device.Transport transport(int code) {
        Device.Transport[] v = Device.Transport.values();
        return code >= 0 && code + 1 < v.length ? v[code + 1] : Device.Transport.UNKNOWN;
    }

    MemorySegment segment() {
        return context;
    }

    long address() {
        return context.address();
    }

    ContextOps ops() {
        return ops;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.DEVICE_CONTEXT;
    }

    @Override
    String describe() {
        return "device " + device.name();
    }

    @Override
    void destroy() {
        // librdmacm owns the context: it closes it once the fabric and every id let go (NativeFabric#releaseIfUnused)
        asyncEvents.close();
    }

    // ---- removal: the kernel waits in `rdma link delete` until every user has closed the device ----

    /** PDs, CQs and completion channels open on this context. */
    private final java.util.concurrent.atomic.AtomicInteger children = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean removed;

    void childOpened() {
        children.incrementAndGet();
    }

    void childClosed() {
        children.decrementAndGet();
        if (removed) {
            fabric.releaseIfUnused(this);
        }
    }

    /** {@return how many PDs, CQs and completion channels are open on this context} */
    int children() {
        return children.get();
    }

    /**
     * The device is going away (the CM's DEVICE_REMOVAL for an id on it, or DEVICE_FATAL): once nothing of the
     * application is left on it and no poller watches its async fd, the fabric lets librdmacm close it.
     */
    void markRemoved() {
        removed = true;
        fabric.releaseIfUnused(this);
    }

    /** {@return whether the device was reported removed} */
    boolean removed() {
        return removed;
    }

    NativeAsyncEvents nativeAsyncEvents() {
        return asyncEvents;
    }

    @Override
    public Device device() {
        return device;
    }

    /** {@code RXE_VENDOR_ID}: Linux Soft-RoCE, whose windows are not confined to their own range. */
    static final int RXE_VENDOR_ID = 0xFFFFFF;
    private volatile Boolean windowBounds;

    /**
     * Whether windows confine access to their own range: not on rxe (vendor 0xFFFFFF), whose {@code check_rkey}
     * checks only the range of the region under a window (see {@code MemoryWindowConformance}); hardware that has
     * windows follows the IBA. Queried once.
     */
    /** Whether this is Linux Soft-RoCE (rxe), whose quirks the provider works around. Queried once. */
    boolean isRxe() {
        Boolean r = rxe;
        if (r == null) {
            r = queryDevice().vendorId() == RXE_VENDOR_ID;
            rxe = r;
        }
        return r;
    }

    private volatile Boolean rxe;

    @Override
    public boolean enforcesWindowBounds() {
        Boolean b = windowBounds;
        if (b == null) {
            DeviceAttributes a = queryDevice();
            b = a.supportsMemoryWindows() && !isRxe();
            windowBounds = b;
        }
        return b;
    }

    @Override
    public DeviceAttributes queryDevice() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvDeviceAttr.LAYOUT);
            Devices.queryDevice(context, a);
            return new DeviceAttributes(IbvDeviceAttr.fwVer(a), IbvDeviceAttr.nodeGuid(a), IbvDeviceAttr.vendorId(a),
                    IbvDeviceAttr.vendorPartId(a), IbvDeviceAttr.maxMrSize(a), IbvDeviceAttr.maxQp(a),
                    IbvDeviceAttr.maxQpWr(a), Integer.toUnsignedLong(IbvDeviceAttr.deviceCapFlags(a)),
                    IbvDeviceAttr.maxSge(a), IbvDeviceAttr.maxCq(a), IbvDeviceAttr.maxCqe(a), IbvDeviceAttr.maxMr(a),
                    IbvDeviceAttr.maxPd(a), IbvDeviceAttr.maxQpRdAtom(a), IbvDeviceAttr.maxQpInitRdAtom(a),
                    IbvDeviceAttr.atomicCap(a), IbvDeviceAttr.maxAh(a), IbvDeviceAttr.maxSrq(a),
                    IbvDeviceAttr.maxSrqWr(a), IbvDeviceAttr.maxSrqSge(a), IbvDeviceAttr.maxMcastGrp(a),
                    IbvDeviceAttr.maxMcastQpAttach(a), IbvDeviceAttr.physPortCnt(a));
        }
    }

    /**
     * {@code ibv_query_device_ex}'s {@code tm_caps}: what the device's tag matching can do. rxe answers through the
     * kernel with {@code max_num_tags} 0, as does a provider without the extended query (the fallback zeroes it): both
     * report {@link TmCaps#NONE}.
     */
    @Override
    public TmCaps queryTmCaps() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvDeviceAttrEx.LAYOUT);
            Devices.queryDeviceEx(context, a);
            MemorySegment tm = IbvDeviceAttrEx.tmCaps(a);
            return new TmCaps(IbvTmCaps.maxRndvHdrSize(tm), IbvTmCaps.maxNumTags(tm), IbvTmCaps.flags(tm),
                    IbvTmCaps.maxOps(tm), IbvTmCaps.maxSge(tm));
        }
    }

    @Override
    public PortAttributes queryPort(int port) {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvPortAttr.LAYOUT);
            Devices.queryPort(context, port, a);
            return new PortAttributes(IbvPortAttr.state(a), mtu(IbvPortAttr.maxMtu(a)), mtu(IbvPortAttr.activeMtu(a)),
                    IbvPortAttr.gidTblLen(a), IbvPortAttr.portCapFlags(a),
                    Integer.toUnsignedLong(IbvPortAttr.maxMsgSz(a)), IbvPortAttr.pkeyTblLen(a), IbvPortAttr.lid(a),
                    IbvPortAttr.linkLayer(a));
        }
    }

    /** An {@code enum ibv_mtu} code as {@link Mtu}; {@code null} for 0 (unknown). */
    static Mtu mtu(int code) {
        return code >= 1 && code <= 5 ? Mtu.ofCode(code) : null;
    }

    @Override
    public Gid queryGid(int port, int index) {
        ensureOpen();
        if (index < 0) {
            throw new IllegalArgumentException("GID index must not be negative, got " + index);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment g = arena.allocate(IbvGid.LAYOUT);
            Devices.queryGid(context, port, index, g);
            return Gid.of(IbvGid.raw(g));
        }
    }

    @Override
    public int queryPkey(int port, int index) {
        ensureOpen();
        if (index < 0) {
            throw new IllegalArgumentException("P_Key index must not be negative, got " + index);
        }
        return Devices.queryPkey(context, port, index);
    }

    @Override
    public ProtectionDomain allocPd() {
        ensureOpen();
        return new NativeProtectionDomain(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        ensureOpen();
        return new NativeCompletionChannel(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel, int vector) {
        ensureOpen();
        if (minEntries < 1) {
            throw new IllegalArgumentException("a CQ needs at least 1 entry, got " + minEntries);
        }
        int vectors = numCompVectors();
        if (vector < 0 || vector >= Math.max(vectors, 1)) {
            throw new IllegalArgumentException("completion vector must be within 0.." + (vectors - 1) + ", got " + vector);
        }
        NativeCompletionChannel ch = null;
        if (channel != null) {
            if (!(channel instanceof NativeCompletionChannel n) || n.device() != this) {
                throw new IllegalArgumentException("the completion channel belongs to another device or provider");
            }
            n.ensureOpen();
            ch = n;
        }
        return new NativeCompletionQueue(this, minEntries, ch, vector);
    }

    @Override
    public int numCompVectors() {
        return IbvContext.numCompVectors(context);
    }

    @Override
    public AsyncEventSource asyncEvents() {
        return asyncEvents;
    }
}
