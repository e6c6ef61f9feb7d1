package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
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
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A soft RDMA device ({@code ibv_context}): one or more {@link DevicePort}s (Ethernet link layer, ACTIVE unless
 * taken down) whose GID tables hold the IPv4-mapped addresses the device owns, one {@link Link} per address, and the
 * tables the data path looks objects up in (QPs by QPN, MRs by key, AHs by handle). Attributes follow rxe's where
 * they make sense; the active MTU comes from the interface's MTU by the RDMA CM's iboe rule (lo: 4096). A device
 * with a second address (two ports, or two GIDs on a port) claims {@code IBV_DEVICE_AUTO_PATH_MIG} and migrates
 * paths on its Ethernet ports ({@link #migratesPaths}); one with a single address has no alternate to offer.
 *
 * <p>Thread-safe. Created and closed by the fabric.
 */
public final class SoftDevice implements DeviceContext, ResourceTracker.Tracked {
    /** Largest {@code max_inline_data} a QP can ask for. */
    public static final int MAX_INLINE = 512;
    static final int MAX_QP = 1 << 16;
    static final int MAX_MR = 1 << 20;
    static final int MAX_AH = (1 << 15) - 1;
    /** UD QPs one group may have attached on a device ({@code max_mcast_qp_attach}, rxe's value). */
    static final int MAX_MCAST_QP_ATTACH = 56;
    /** {@code IBV_PORT_CM_SUP}. */
    static final int PORT_CAP_CM_SUP = 1 << 16;
    /** Device capability bits ({@code enum ibv_device_cap_flags}) of every soft device; memory windows of type 1 and 2B. */
    static final long CAP_FLAGS = (1L << 1) /* BAD_PKEY_CNTR */ | (1L << 2) /* BAD_QKEY_CNTR */
            | (1L << 5) /* CHANGE_PHY_PORT */ | (1L << 10) /* PORT_ACTIVE_EVENT */ | (1L << 11) /* SYS_IMAGE_GUID */
            | (1L << 12) /* RC_RNR_NAK_GEN */ | DeviceAttributes.CAP_MEM_WINDOW | DeviceAttributes.CAP_MEM_WINDOW_TYPE_2B;
    /** Largest message ({@code max_msg_sz}): 2 GiB. */
    public static final long MAX_MESSAGE_SIZE = 1L << 31;
    /** {@code IBV_PORT_DOWN}. */
    static final int PORT_STATE_DOWN = 1;

    private final String name;
    private final TransportSettings config;
    private final ResourceTracker tracker;
    private final Timers timers;
    private final WorkQueue workQueue;
    private final ReceptionProgress reception;
    private final int[] addresses;
    private final DevicePort[] ports;
    /** Per address (device order): its port and its GID index there. */
    private final DevicePort[] portOfAddress;
    private final int[] gidIndexOfAddress;
    private final Link[] links;
    private final Dispatcher[] dispatchers;
    private final long nodeGuid;
    private final Device device;
    private final DeviceAttributes attributes;
    private final Mtu activeMtu;
    private final SoftAsyncEvents asyncEvents;
    private final Gsi gsi;
    /** Where QPNs and memory keys come from: seeded once, when the device opens. */
    private final SecureRandom random = seededRandom();
    /** QPs by QPN: random 24-bit numbers (0, 1 and the multicast QPN excepted). */
    private final KeyTable<SoftQueuePair> qps = new KeyTable<>(MAX_QP - 3, random, 1, 0xFFFFFF);
    /** Counts of the QPs closed so far, by {@link QpCounter} ordinal (guarded by itself). */
    private final long[] retired = new long[QpCounter.values().length];
    /** Memory regions and windows by {@code key >>> 8}: 24 random bits per key. */
    private final KeyTable<Object> memoryKeys = new KeyTable<>(MAX_MR, random);
    private final AccessGuard accessGuard;
    private final HandleTable<SoftAddressHandle> ahs = new HandleTable<>(1, MAX_AH);
    private final MulticastGroups multicast;
    private volatile boolean closed;

    /**
     * Opens the device: binds one link per address.
     *
     * @param ports the addresses of each port (port 1 first)
     * @param reception whether the loop that reads the links keeps up (for the retransmit timers)
     * @param events where async-event listeners are called (off the NIC threads)
     */
    public SoftDevice(String name, List<List<Inet4Address>> ports, TransportSettings config, ResourceTracker tracker,
            Timers timers, WorkQueue workQueue, ReceptionProgress reception, Link.Factory linkFactory,
            Executor events) {
        this.name = name;
        this.accessGuard = new AccessGuard(name);
        this.config = config;
        this.tracker = tracker;
        this.timers = timers;
        this.workQueue = workQueue;
        this.reception = reception;
        int total = ports.stream().mapToInt(List::size).sum();
        this.addresses = new int[total];
        this.ports = new DevicePort[ports.size()];
        this.portOfAddress = new DevicePort[total];
        this.gidIndexOfAddress = new int[total];
        int k = 0;
        for (int p = 0; p < ports.size(); p++) {
            List<Inet4Address> list = ports.get(p);
            int[] ips = new int[list.size()];
            for (int i = 0; i < ips.length; i++) {
                ips[i] = Ipv4.toInt(list.get(i));
            }
            this.ports[p] = new DevicePort(p + 1, ips);
            for (int i = 0; i < ips.length; i++, k++) {
                addresses[k] = ips[i];
                portOfAddress[k] = this.ports[p];
                gidIndexOfAddress[k] = i;
            }
        }
        this.nodeGuid = 0x0200_0000_0000_0000L | ((long) config.udpPort() << 32)
                | Integer.toUnsignedLong(this.addresses[0]);
        this.device = new Device(name, nodeGuid, Device.NodeType.CA, Device.Transport.IB);
        this.asyncEvents = new SoftAsyncEvents(this, events);
        this.gsi = new Gsi(this);
        this.links = new Link[this.addresses.length];
        this.dispatchers = new Dispatcher[this.addresses.length];
        try {
            for (int i = 0; i < links.length; i++) {
                dispatchers[i] = new Dispatcher(this, gsi);
                links[i] = portOfAddress[i].open(gidIndexOfAddress[i], linkFactory, config.udpPort(), dispatchers[i]);
            }
        } catch (RuntimeException e) {
            for (DevicePort p : this.ports) {
                p.close();
            }
            throw e;
        }
        this.multicast = new MulticastGroups(links[0], config.maxMulticastGroups(), MAX_MCAST_QP_ATTACH);
        this.activeMtu = Mtu.ofCode(dev.ibex.softroce.wire.Mtu.fromNetdevMtu(links[0].netdevMtu()).code());
        long caps = total > 1 ? CAP_FLAGS | DeviceAttributes.CAP_AUTO_PATH_MIG : CAP_FLAGS;
        this.attributes = new DeviceAttributes("ibex-soft-roce", nodeGuid, 0xFFFFFF, 0, Long.MAX_VALUE,
                MAX_QP - 3, 1 << 14, caps, 32, 1 << 16, (1 << 15) - 1, MAX_MR - 1, 1 << 20, 128, 128, 1,
                MAX_AH - 1, 1 << 16, 1 << 14, 27, config.maxMulticastGroups(), MAX_MCAST_QP_ATTACH,
                this.ports.length);
        tracker.opened(this);
    }

    // ---- DeviceContext ----------------------------------------------------------------------------------

    @Override
    public Device device() {
        return device;
    }

    public String name() {
        return name;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.DEVICE_CONTEXT;
    }

    @Override
    public DeviceAttributes queryDevice() {
        return attributes;
    }

    /** Tag matching in software ({@link SoftTagMatchingSrq}): RC, eager and unexpected messages, phase sync. */
    @Override
    public TmCaps queryTmCaps() {
        return SoftTagMatchingSrq.CAPS;
    }

    @Override
    public PortAttributes queryPort(int port) {
        DevicePort p = port(port, "ibv_query_port");
        return new PortAttributes(p.isActive() ? PortAttributes.STATE_ACTIVE : PORT_STATE_DOWN, Mtu.MTU_4096,
                activeMtu, p.gidCount(), PORT_CAP_CM_SUP, MAX_MESSAGE_SIZE, 1, 0, PortAttributes.LINK_LAYER_ETHERNET);
    }

    @Override
    public Gid queryGid(int port, int index) {
        DevicePort p = port(port, "ibv_query_gid");
        if (index < 0 || index >= p.gidCount()) {
            throw new RdmaException("ibv_query_gid", Errno.EINVAL, "GID index " + index + " of port " + port
                    + " is not populated (the table has " + p.gidCount() + " entries)");
        }
        return p.gid(index);
    }

    /**
     * APM on this device's Ethernet ports: the soft transport migrates paths itself (IBA 17.2.8 over RoCEv2), so
     * any device with a second address can; one with a single address (one port, one GID) has no alternate.
     */
    @Override
    public boolean migratesPaths(int port) {
        port(port, "ibv_query_port");
        return queryDevice().supportsAutoPathMigration();
    }

    private DevicePort port(int port, String verb) {
        if (port < 1 || port > ports.length) {
            throw new RdmaException(verb, Errno.EINVAL, "port " + port + ": " + name + " has "
                    + (ports.length == 1 ? "port 1 only" : "ports 1.." + ports.length));
        }
        return ports[port - 1];
    }

    @Override
    public int queryPkey(int port, int index) {
        queryPort(port);
        if (index != 0) {
            throw new RdmaException("ibv_query_pkey", Errno.EINVAL, "the P_Key table has one entry (index 0)");
        }
        return 0xFFFF;
    }

    @Override
    public ProtectionDomain allocPd() {
        requireOpen();
        return new SoftProtectionDomain(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        requireOpen();
        return new SoftCompletionChannel(this);
    }

    @Override
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel, int vector) {
        requireOpen();
        if (minEntries < 1 || minEntries > attributes.maxCqe()) {
            throw new IllegalArgumentException("a CQ needs 1.." + attributes.maxCqe() + " entries, got " + minEntries);
        }
        if (vector != 0) {
            throw new IllegalArgumentException("the soft device has one completion vector (0), got " + vector);
        }
        if (channel != null && !(channel instanceof SoftCompletionChannel)) {
            throw new IllegalArgumentException("the channel does not belong to a soft-roce device");
        }
        return new SoftCompletionQueue(this, minEntries, (SoftCompletionChannel) channel);
    }

    @Override
    public int numCompVectors() {
        return 1;
    }

    @Override
    public AsyncEventSource asyncEvents() {
        return asyncEvents;
    }

    // ---- for the CM and the transport -------------------------------------------------------------------

    /** The device's async events, with listeners for the CM. */
    public SoftAsyncEvents events() {
        return asyncEvents;
    }

    /** The addresses as ints: port 1's GID table, then port 2's, and so on. */
    public int[] addresses() {
        return addresses.clone();
    }

    /** Whether {@code ip} is one of this device's addresses. */
    public boolean owns(int ip) {
        return indexOf(ip) >= 0;
    }

    private int indexOf(int ip) {
        for (int i = 0; i < addresses.length; i++) {
            if (addresses[i] == ip) {
                return i;
            }
        }
        return -1;
    }

    /** The GID index of {@code ip} in its port's GID table, or -1. */
    public int gidIndexOf(int ip) {
        int i = indexOf(ip);
        return i < 0 ? -1 : gidIndexOfAddress[i];
    }

    /** The port that holds {@code ip} (1-based), or 0. */
    public int portOf(int ip) {
        int i = indexOf(ip);
        return i < 0 ? 0 : portOfAddress[i].number();
    }

    /** Number of ports ({@code phys_port_cnt}). */
    public int portCount() {
        return ports.length;
    }

    /** Whether {@code port} (1-based) is ACTIVE. */
    public boolean isPortActive(int port) {
        return port(port, "ibv_query_port").isActive();
    }

    /**
     * Takes {@code port} DOWN (an unplugged cable: its links neither send nor receive, {@code IBV_EVENT_PORT_ERR})
     * or brings it back ACTIVE ({@code IBV_EVENT_PORT_ACTIVE}). No event when the state does not change. Any thread.
     *
     * @throws RdmaException EINVAL for a port the device does not have
     */
    public void setPortActive(int port, boolean active) {
        DevicePort p = port(port, "set_port_state");
        if (p.setActive(active)) {
            asyncEvents.raisePort(active ? dev.ibex.cm.spi.AsyncEventType.PORT_ACTIVE
                    : dev.ibex.cm.spi.AsyncEventType.PORT_ERR, port);
        }
    }

    /** The port's active MTU (the path MTU the CM should use). */
    public Mtu activeMtu() {
        return activeMtu;
    }

    /** The link of address {@code index} in {@link #addresses()} order (port 1's GID table first). */
    public Link link(int index) {
        return links[index];
    }

    /** The link of the address {@code ip} (one of the device's), or {@code null}. */
    public Link linkOf(int ip) {
        int i = indexOf(ip);
        return i < 0 ? null : links[i];
    }

    /** Datagrams dropped on arrival, by reason. */
    public DropCounts dropCounts() {
        long malformed = 0;
        long unknown = 0;
        long offPath = 0;
        long wrongTransport = 0;
        for (Dispatcher d : dispatchers) {
            malformed += d.malformed();
            unknown += d.unknownQp();
            offPath += d.offPath();
            wrongTransport += d.wrongTransport();
        }
        return new DropCounts(malformed, unknown, offPath, wrongTransport);
    }

    /** Remote access errors per peer, and the peers cut off for making too many. */
    public AccessGuard accessGuard() {
        return accessGuard;
    }

    /** QP1: MADs to and from this device. */
    public MadPort madPort() {
        return gsi;
    }

    public TransportSettings config() {
        return config;
    }

    public Timers timers() {
        return timers;
    }

    /** {@return whether the loop that reads this device's links keeps up with them} */
    ReceptionProgress reception() {
        return reception;
    }

    /** Where receive and timer threads hand over long work. */
    public WorkQueue workQueue() {
        return workQueue;
    }

    ResourceTracker tracker() {
        return tracker;
    }

    /** The QP with number {@code qpn}, or {@code null}. Lock-free. */
    public SoftQueuePair queuePair(int qpn) {
        return (qpn & ~KeyTable.MASK) != 0 ? null : qps.get(qpn);
    }

    /** The UD QPs attached to multicast group {@code group} (IPv4 as an int). Lock-free, allocation-free. */
    public SoftQueuePair[] multicastMembers(int group) {
        return multicast.members(group);
    }

    void attachMulticast(int group, SoftQueuePair qp) {
        multicast.attach(group, qp);
    }

    boolean detachMulticast(int group, SoftQueuePair qp) {
        return multicast.detach(group, qp);
    }

    /** The MR with lkey/rkey {@code key}, or {@code null}. Lock-free. */
    public SoftMemoryRegion memoryRegion(int key) {
        return memoryKeys.get(key >>> 8) instanceof SoftMemoryRegion mr && mr.key() == key ? mr : null;
    }

    /**
     * The memory window the upper 24 bits of {@code rkey} name, or {@code null}; whether the whole key is the one of
     * its binding is for the window to say. Lock-free.
     */
    public SoftMemoryWindow memoryWindow(int rkey) {
        return memoryKeys.get(rkey >>> 8) instanceof SoftMemoryWindow mw ? mw : null;
    }

    /** What the upper 24 bits of {@code key} name: a {@link SoftMemoryRegion}, a {@link SoftMemoryWindow}, or null. */
    public Object memoryKey(int key) {
        return memoryKeys.get(key >>> 8);
    }

    /** The AH with {@code handle}, or {@code null}. */
    public SoftAddressHandle addressHandle(long handle) {
        return handle <= 0 || handle > MAX_AH ? null : ahs.get((int) handle);
    }

    /**
     * Resolves an address vector: a port of the device, a global route (RoCE), a populated source GID index of that
     * port and an IPv4-mapped destination GID.
     *
     * @throws RdmaException EINVAL otherwise
     */
    public Route resolve(AhAttr attr, String verb) {
        if (attr == null) {
            throw new RdmaException(verb, Errno.EINVAL, "no address vector given");
        }
        DevicePort p = port(attr.portNum(), verb);
        if (!attr.isGlobal() || attr.dgid() == null) {
            throw new RdmaException(verb, Errno.EINVAL, "RoCE address vectors need a global route (a GID)");
        }
        if (attr.sgidIndex() < 0 || attr.sgidIndex() >= p.gidCount()) {
            throw new RdmaException(verb, Errno.EINVAL, "source GID index " + attr.sgidIndex() + " of port "
                    + p.number() + " is not populated (the table has " + p.gidCount() + " entries)");
        }
        Gid dgid = attr.dgid();
        if (!dgid.isIpv4Mapped()) {
            throw new RdmaException(verb, Errno.EINVAL, "the soft device speaks RoCEv2 over IPv4: the destination GID "
                    + dgid + " must be IPv4-mapped (::ffff:a.b.c.d)");
        }
        Inet4Address ip = (Inet4Address) dgid.toInetAddress();
        int dstIp = Ipv4.toInt(ip);
        Link link = p.link(attr.sgidIndex());
        return new Route(attr, p.number(), link, dstIp, new InetSocketAddress(ip, link.port()));
    }

    /** Copies inline data at native address {@code addr} through the MR that holds it (lkey first, else any). */
    boolean copyInline(SoftProtectionDomain pd, long addr, int len, int lkey, MemorySegment dst, long dstOffset) {
        SoftMemoryRegion mr = memoryRegion(lkey);
        if (mr == null || mr.check(addr, len, 0) != SoftMemoryRegion.OK) {
            mr = findRegion(addr, len);
        }
        if (mr == null) {
            return false;
        }
        try {
            MemorySegment.copy(mr.segment(), mr.offsetOf(addr), dst, dstOffset, len);
            return true;
        } catch (IllegalStateException freed) {
            return false;
        }
    }

    private SoftMemoryRegion findRegion(long addr, int len) {
        return (SoftMemoryRegion) memoryKeys.find(o -> o instanceof SoftMemoryRegion mr
                && mr.check(addr, len, 0) == SoftMemoryRegion.OK);
    }

    /** A random free QPN for {@code qp}, or -1 when the table is full. */
    int registerQueuePair(SoftQueuePair qp) {
        return qps.add(qp);
    }

    void unregisterQueuePair(SoftQueuePair qp) {
        synchronized (retired) { // a closing QP's counts move to the retired totals in one step for readers
            for (QpCounter c : QpCounter.values()) {
                retired[c.ordinal()] += qp.count(c);
            }
            qps.remove(qp.qpNum(), qp);
        }
    }

    /**
     * The device's total of {@code c}: every live QP's plus those of the QPs closed before (so it never decreases).
     * Walks the QP table: call it for statistics, not per packet.
     */
    public long count(QpCounter c) {
        synchronized (retired) {
            long[] sum = {retired[c.ordinal()]};
            qps.find(qp -> {
                sum[0] += qp.count(c);
                return false;
            });
            return sum[0];
        }
    }

    /**
     * A memory key for {@code region} (an MR or an MW): 24 random bits that name it in the key table, and a random
     * low byte (the consumer key, which binding a window changes).
     *
     * @throws RdmaException ENOMEM when the table is full
     */
    int registerMemoryKey(Object region, String verb) {
        int index = memoryKeys.add(region);
        if (index < 0) {
            throw new RdmaException(verb, Errno.ENOMEM, "the device's memory key table is full (" + MAX_MR + ")");
        }
        return index << 8 | (random.nextInt() & 0xFF);
    }

    void unregisterMemoryKey(int key, Object region) {
        memoryKeys.remove(key >>> 8, region);
    }

    int registerAddressHandle(SoftAddressHandle ah) {
        int index = ahs.add(ah);
        if (index < 0) {
            throw new RdmaException("ibv_create_ah", Errno.ENOMEM, "the device's AH table is full");
        }
        return index;
    }

    void unregisterAddressHandle(SoftAddressHandle ah) {
        ahs.remove(ah.index(), ah);
    }

    /**
     * A DRBG seeded now, on the thread that opens the device: seeding may read the OS entropy source, which must not
     * happen later on an event loop; afterwards drawing numbers costs no system call. Its bytes are drawn from the
     * DRBG in batches ({@link PooledRandom}).
     *
     * @return the seeded generator
     */
    public static SecureRandom seededRandom() {
        try {
            SecureRandom r = SecureRandom.getInstance("DRBG");
            r.nextInt();
            return new PooledRandom(r);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no DRBG SecureRandom", e);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("device " + name + " is closed");
        }
    }

    /** Stops the links. The fabric closes every resource on the device first. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        // Like uverbs on hot-unplug: applications see DEVICE_FATAL, the CM reports DEVICE_REMOVAL to ids on it.
        asyncEvents.raiseDevice(dev.ibex.cm.spi.AsyncEventType.DEVICE_FATAL);
        for (DevicePort p : ports) {
            p.close();
        }
        tracker.closed(this);
    }

    @Override
    public String toString() {
        List<List<String>> a = new ArrayList<>();
        for (DevicePort p : ports) {
            a.add(p.describe());
        }
        return "SoftDevice[" + name + " " + (ports.length == 1 ? a.get(0) : a) + " mtu " + activeMtu.bytes() + "]";
    }
}
