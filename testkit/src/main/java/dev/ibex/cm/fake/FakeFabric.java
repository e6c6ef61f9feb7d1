package dev.ibex.cm.fake;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The fake fabric: devices with IPv4 addresses, and everything a test needs to watch or steer them. All data-path
 * and CM state is guarded by one lock ({@link #lock}), so connected QPs may live on different loops. Threading: any
 * thread may call every method (the test thread steers the fabric while loops use it).
 */
public final class FakeFabric implements Fabric {
    /** How the fabric's ids and QPs behave: connecting for real, or recording while the test scripts events. */
    public enum Mode {
        /** Ids and QPs of this fabric really connect and move data. */
        LOOPBACK,
        /** Calls are recorded; the test injects every event and completion. */
        SCRIPTED
    }

    final Object lock = new Object();
    final ResourceTracker tracker = new ResourceTracker();
    final Mode mode;
    private final List<FakeDevice> devices = new ArrayList<>();
    private final List<DeviceContext> deviceView;
    final Map<String, List<FakeCmId>> listeners = new HashMap<>();
    final Map<Integer, FakeQp> qps = new HashMap<>();
    final Map<Integer, FakeMr> mrs = new HashMap<>();
    final Map<Long, FakeAh> ahs = new HashMap<>();
    final Map<Gid, Set<FakeQp>> groups = new HashMap<>();
    final Set<InetAddress> blackholed = Collections.synchronizedSet(new HashSet<>());
    final Set<InetAddress> failingGroups = Collections.synchronizedSet(new HashSet<>());
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<FakePoller> pollers = new CopyOnWriteArrayList<>();
    private final List<FakeEventChannel> channels = new CopyOnWriteArrayList<>();
    int nextQpn = 0x100;
    int nextKey = 0x1000;
    long nextAh = 1;
    int nextPort = 40000;
    private volatile boolean closed;

    private FakeFabric(Mode mode, boolean apm, String... ips) {
        this(mode, apm, false, ips);
    }

    private FakeFabric(Mode mode, boolean apm, boolean roce, String... ips) {
        this.mode = mode;
        for (int i = 0; i < ips.length; i++) {
            devices.add(new FakeDevice(this, "fake" + i, address(ips[i]), apm, roce));
        }
        deviceView = List.copyOf(devices);
    }

    /**
     * A connecting fabric with one device per address (default: 10.0.0.1 and 10.0.1.1, APM capable).
     *
     * @param ips the IPv4 addresses of the devices, in device order; none for the two defaults
     * @return a new open fabric in {@link Mode#LOOPBACK}
     * @throws IllegalArgumentException if an address does not parse
     */
    public static FakeFabric loopback(String... ips) {
        return new FakeFabric(Mode.LOOPBACK, true, ips.length == 0 ? new String[] {"10.0.0.1", "10.0.1.1"} : ips);
    }

    /**
     * A recording fabric: the test scripts every event.
     *
     * @param ips the IPv4 addresses of the devices, in device order; none for 10.0.0.1 and 10.0.1.1
     * @return a new open fabric in {@link Mode#SCRIPTED}
     * @throws IllegalArgumentException if an address does not parse
     */
    public static FakeFabric scripted(String... ips) {
        return new FakeFabric(Mode.SCRIPTED, true, ips.length == 0 ? new String[] {"10.0.0.1", "10.0.1.1"} : ips);
    }

    /**
     * Like {@link #loopback} but the devices lack {@code IBV_DEVICE_AUTO_PATH_MIG}.
     *
     * @param ips the IPv4 addresses of the devices; none for 10.0.0.1 alone
     * @return a new open loopback fabric whose devices cannot migrate paths
     * @throws IllegalArgumentException if an address does not parse
     */
    public static FakeFabric loopbackWithoutApm(String... ips) {
        return new FakeFabric(Mode.LOOPBACK, false, ips.length == 0 ? new String[] {"10.0.0.1"} : ips);
    }

    /**
     * Devices like Linux rxe: they claim IBV_DEVICE_AUTO_PATH_MIG, but their ports are RoCE (Ethernet).
     *
     * @param ips the IPv4 addresses of the devices; none for 10.0.0.1 alone
     * @return a new open loopback fabric with RoCE ports on APM-claiming devices
     * @throws IllegalArgumentException if an address does not parse
     */
    public static FakeFabric loopbackRoceClaimingApm(String... ips) {
        return new FakeFabric(Mode.LOOPBACK, true, true, ips.length == 0 ? new String[] {"10.0.0.1"} : ips);
    }

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** {@return whether this fabric connects for real or records calls for a scripted test} */
    public Mode mode() {
        return mode;
    }

    @Override
    public String providerName() {
        return "fake";
    }

    @Override
    public List<DeviceContext> devices() {
        return deviceView;
    }

    /**
     * One of the fabric's devices, in the order their addresses were given.
     *
     * @param i the device index, from 0
     * @return the device
     * @throws IndexOutOfBoundsException if there is no such device
     */
    public FakeDevice device(int i) {
        return devices.get(i);
    }

    FakeDevice deviceOf(InetAddress ip) {
        for (FakeDevice d : devices) {
            if (d.ip().equals(ip)) {
                return d;
            }
        }
        return null;
    }

    @Override
    public EventChannel createEventChannel() {
        checkOpen();
        FakeEventChannel c = new FakeEventChannel(this);
        channels.add(c);
        return c;
    }

    @Override
    public Poller createPoller() {
        checkOpen();
        FakePoller p = new FakePoller(this);
        pollers.add(p);
        return p;
    }

    /** {@return every poller this fabric created (closed ones included), in creation order} */
    public List<FakePoller> pollers() {
        return List.copyOf(pollers);
    }

    /** {@return every CM event channel this fabric created (closed ones included), in creation order} */
    public List<FakeEventChannel> channels() {
        return List.copyOf(channels);
    }

    @Override
    public ResourceCounts resources() {
        return tracker.snapshot();
    }

    /**
     * Live count of one kind.
     *
     * @param kind the kind of verbs object
     * @return how many objects of that kind are open now
     */
    public int count(ResourceKind kind) {
        return tracker.snapshot().get(kind);
    }

    /**
     * Misuse the verbs would punish (hang, EBUSY, ENOMEM, CQ overrun), in the order it happened.
     *
     * @return a snapshot of the recorded violations, one description each; empty when the code under test behaved
     */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    void violation(String what) {
        violations.add(what);
    }

    /**
     * Address resolution towards {@code ip} never answers (to exercise timeouts).
     *
     * @param ip the IPv4 address that becomes unreachable
     * @throws IllegalArgumentException if the address does not parse
     */
    public void blackhole(String ip) {
        blackholed.add(address(ip));
    }

    volatile RuntimeException resolveAddrRefusal;

    /**
     * Every later {@code resolveAddr} throws {@code e} (a provider refusing; {@code null} to stop).
     *
     * @param e the exception to throw, or {@code null} to resolve normally again
     */
    public void refuseResolveAddr(RuntimeException e) {
        resolveAddrRefusal = e;
    }

    /**
     * Joins of the multicast group {@code ip} fail with MULTICAST_ERROR.
     *
     * @param ip the multicast group address
     * @throws IllegalArgumentException if the address does not parse
     */
    public void failJoins(String ip) {
        failingGroups.add(address(ip));
    }

    volatile boolean srqLimitEvents = true;

    /**
     * Whether SRQs raise {@code SRQ_LIMIT_REACHED} (default true). Off, a consumer must keep its SRQ filled without
     * the event — as it must when the event arrives after the completions it warned of have all been taken.
     *
     * @param on whether SRQs armed with a limit raise the event
     */
    public void srqLimitEvents(boolean on) {
        srqLimitEvents = on;
    }

    /**
     * Raises an async event on its device's source.
     *
     * @param e the event; its {@link AsyncEvent#device()} must be a device of this fabric
     */
    public void raise(AsyncEvent e) {
        ((FakeDevice) e.device()).asyncEvents().inject(e);
    }

    /** {@return a snapshot of every QP alive now} */
    public List<FakeQp> qps() {
        synchronized (lock) {
            return new ArrayList<>(qps.values());
        }
    }

    /** {@return a snapshot of every CM id alive now, on any channel} */
    public List<FakeCmId> ids() {
        LinkedHashSet<FakeCmId> out = new LinkedHashSet<>();
        for (FakeEventChannel c : channels) {
            out.addAll(c.ids);
        }
        return new ArrayList<>(out);
    }

    static String listenKey(PortSpace ps, int port) {
        return ps + ":" + port;
    }

    FakeCmId findListener(PortSpace ps, InetSocketAddress to) {
        List<FakeCmId> l = listeners.get(listenKey(ps, to.getPort()));
        if (l == null) {
            return null;
        }
        for (FakeCmId id : l) {
            InetAddress bound = id.localAddress().getAddress();
            if (bound.isAnyLocalAddress() || bound.equals(to.getAddress())) {
                return id;
            }
        }
        return null;
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("fabric is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        tracker.closeAll();
    }
}
