package dev.ibex.softroce;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.RdmaCounter;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.net.SoftPort;
import dev.ibex.softroce.net.SocketDrops;
import dev.ibex.softroce.pcap.PcapWriter;
import dev.ibex.softroce.transport.Timers;
import dev.ibex.softroce.transport.WorkQueue;
import dev.ibex.softroce.transport.DropCounts;
import dev.ibex.softroce.transport.Link;
import dev.ibex.softroce.transport.QpCounter;
import dev.ibex.softroce.transport.ReceptionProgress;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.transport.SoftPoller;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opened soft-roce provider: its devices (one per configured address set, each bound to UDP), the transport's
 * timer thread, an event executor for the CM and async-event listeners, and the CM service when the CM package is
 * on the class path. Everything a CM needs is public here; see {@code soft-roce/CONTRACT.md}.
 *
 * <p>Thread-safe. {@link #close()} closes every resource still open (children first), the CM, the devices and the
 * threads.
 */
public final class SoftFabric implements Fabric {
    private static final Logger LOG = LoggerFactory.getLogger(SoftFabric.class);

    private final SoftRoceConfig config;
    private final ResourceTracker tracker = new ResourceTracker();
    private final Timers timers;
    private final WorkQueue workQueue;
    private final ScheduledExecutorService scheduler;
    private final ScheduledThreadPoolExecutor schedulerPool;
    private final PcapWriter pcap;
    private final FaultInjector faults;
    private final List<SoftDevice> devices = new ArrayList<>();
    /** Whether a poller reads the devices' sockets now ({@link SoftRoceConfig#receiveOnLoop()}: one at a time). */
    private final AtomicBoolean receptionLent = new AtomicBoolean();
    private final CmService cm;
    /** Whether the loop that reads the sockets keeps up with them (for the QPs' retransmit timers). */
    private final ReceptionProgress receptionProgress = new ReceptionProgress();
    private final FaultCommands faultCommands = new FaultCommands(this);
    private final FaultControlFile controlFile;
    private volatile boolean closed;

    SoftFabric(SoftRoceConfig config) {
        this(config, false);
    }

    /**
     * @param defaultDevices the devices are the default ({@value SoftRoceConfig#DEFAULT_DEVICES}, nobody set
     *     {@value SoftRoceConfig#DEVICES}): when 127.0.0.1 is taken on the UDP port (another process on default
     *     settings), the device takes the next free loopback address instead and says which
     */
    SoftFabric(SoftRoceConfig config, boolean defaultDevices) {
        this.config = config;
        this.timers = new Timers("soft-roce-timers");
        this.workQueue = new WorkQueue("soft-roce-work");
        ScheduledThreadPoolExecutor events = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().daemon().name("soft-roce-events").factory());
        // a cancelled CM timer leaves the queue at once: nearly every REQ, REP and DREQ retry timer is cancelled by
        // the answer, and each kept its slot (and its id) until its deadline, seconds later, growing the queue
        // every schedule sifts through by a few thousand entries per second of connection setup
        events.setRemoveOnCancelPolicy(true);
        this.schedulerPool = events;
        this.scheduler = Executors.unconfigurableScheduledExecutorService(events);
        this.faults = FaultSettings.apply(config.faults(), new FaultInjector(config.faults().getLong(
                FaultSettings.SEED, 0)));
        PcapWriter p = null;
        try {
            if (config.pcap() != null) {
                p = PcapWriter.open(config.pcap());
            }
            this.pcap = p;
            Link.Factory links = NetLink.factory(config, faults, pcap);
            for (DeviceConfig d : config.devices()) {
                devices.add(defaultDevices ? openOnAFreeLoopback(d, links)
                        : new SoftDevice(d.name(), d.ports(), config.transport(), tracker, timers, workQueue,
                                receptionProgress, links, scheduler));
            }
        } catch (IOException e) {
            shutdown();
            throw new UncheckedIOException("cannot open pcap file " + config.pcap(), e);
        } catch (RuntimeException e) {
            shutdown();
            throw e;
        }
        CmService service = null;
        for (CmService.Factory f : ServiceLoader.load(CmService.Factory.class, SoftFabric.class.getClassLoader())) {
            service = f.create(this);
            break;
        }
        this.cm = service;
        String control = config.faults().get(FaultSettings.CONTROL, null);
        this.controlFile = control == null || control.isBlank() ? null
                : new FaultControlFile(java.nio.file.Path.of(control.strip()), faultCommands);
        LOG.debug("soft-roce fabric open: {}", devices);
    }

    /** The highest 127.0.0.x a default device tries before giving up. */
    static final int LOOPBACK_TRIES = 32;

    /**
     * A default device: on 127.0.0.1 if that is free on the UDP port, else on the first free 127.0.0.x — so a second
     * process on default settings works, and says where it is.
     */
    private SoftDevice openOnAFreeLoopback(DeviceConfig d, Link.Factory links) {
        RdmaException busy = null;
        for (int x = 1; x <= LOOPBACK_TRIES; x++) {
            java.net.Inet4Address a = (java.net.Inet4Address) Ipv4.toInetAddress(0x7F000000 | x);
            try {
                SoftDevice dev = new SoftDevice(d.name(), List.of(List.of(a)), config.transport(), tracker, timers,
                        workQueue, receptionProgress, links, scheduler);
                if (x > 1) {
                    LOG.warn("soft-roce: {} is in use on UDP port {} (another process on default settings?): device "
                            + "{} is on {} instead; set {} to choose", d.addresses().getFirst().getHostAddress(),
                            config.udpPort(), d.name(), a.getHostAddress(), SoftRoceConfig.DEVICES);
                }
                return dev;
            } catch (RdmaException e) {
                if (e.errno() != dev.ibex.cm.Errno.EADDRINUSE) {
                    throw e;
                }
                busy = e;
            }
        }
        throw new RdmaException("bind", dev.ibex.cm.Errno.EADDRINUSE.number(), "UDP port " + config.udpPort()
                + " is in use"
                + " on 127.0.0.1 to 127.0.0." + LOOPBACK_TRIES + " (other processes, or kernel rxe, which owns 4791):"
                + " set " + SoftRoceConfig.PORT + " to another port, or " + SoftRoceConfig.DEVICES
                + "=soft0=<a free local IPv4 address>", busy);
    }

    private void shutdown() {
        for (SoftDevice d : devices) {
            d.close();
        }
        timers.close();
        workQueue.close();
        scheduler.shutdownNow();
        if (pcap != null) {
            pcap.close();
        }
    }

    @Override
    public String providerName() {
        return SoftRoceProvider.NAME;
    }

    @Override
    public List<DeviceContext> devices() {
        return List.copyOf(devices);
    }

    /**
     * {@code rdma_create_event_channel}, delegated to the CM package.
     *
     * @throws UnsupportedOperationException when no CM is on the class path
     */
    @Override
    public EventChannel createEventChannel() {
        requireOpen();
        if (cm == null) {
            throw new UnsupportedOperationException("the soft-roce connection manager is not available: no "
                    + CmService.Factory.class.getName() + " is registered (package dev.ibex.softroce.cm); verbs"
                    + " without the CM work (connect QPs by hand with QueuePair.modify)");
        }
        return cm.createEventChannel();
    }

    /** A poller that receives nothing itself: the devices' receive threads do, whoever polls and however often. */
    @Override
    public Poller createPoller() {
        requireOpen();
        return new SoftPoller(tracker, config.idleSpin(), 0, null);
    }

    /**
     * With {@link SoftRoceConfig#receiveOnLoop()} (the default), the first loop poller reads every device socket
     * itself (run to completion), and after it closes the next one; otherwise as {@link #createPoller()}.
     */
    @Override
    public Poller createLoopPoller() {
        requireOpen();
        if (config.receiveOnLoop() && receptionLent.compareAndSet(false, true)) {
            // packets for other loops' connections are processed on this one and their completions wake those
            // loops, as a receive thread's would
            List<SoftPort> ports = new ArrayList<>();
            for (SoftDevice d : devices) {
                for (int i = 0; i < d.addresses().length; i++) {
                    if (d.link(i).network() instanceof NetLink n) {
                        ports.add(n.softPort());
                    }
                }
            }
            try {
                return new SoftPoller(tracker, config.idleSpin(), config.pollerAckHoldNanos(),
                        LoopReception.lend(ports, receptionProgress, () -> receptionLent.set(false)));
            } catch (RuntimeException e) {
                receptionLent.set(false);
                throw e;
            }
        }
        return createPoller();
    }

    @Override
    public ResourceCounts resources() {
        return tracker.snapshot();
    }

    /**
     * Per device (tag {@code device}): the QP counters of {@link QpCounter} (retransmissions, RNR NAKs both ways,
     * out-of-sequence and duplicate requests, invalid responses, path migrations, UD drops) and the drops on arrival
     * of {@link DropCounts} ({@code drops.malformed}, {@code drops.unknown.qp}, {@code drops.off.path},
     * {@code drops.wrong.transport}).
     */
    @Override
    public List<RdmaCounter> counters() {
        List<RdmaCounter> all = new ArrayList<>();
        for (SoftDevice d : devices) {
            Map<String, String> tags = Map.of("device", d.name());
            for (QpCounter c : QpCounter.values()) {
                all.add(new RdmaCounter(c.counterName(), c.description(), tags, () -> d.count(c)));
            }
            all.add(new RdmaCounter("drops.malformed", "datagrams dropped on arrival: not valid RoCEv2 or a bad ICRC",
                    tags, () -> d.dropCounts().malformed()));
            all.add(new RdmaCounter("drops.unknown.qp", "datagrams dropped on arrival: addressed to no QP of the device",
                    tags, () -> d.dropCounts().unknownQp()));
            all.add(new RdmaCounter("drops.off.path", "RC packets and CM MADs dropped on arrival: not from their "
                    + "connection's path (forged, or a stranger)", tags, () -> d.dropCounts().offPath()));
            all.add(new RdmaCounter("drops.wrong.transport", "datagrams dropped on arrival: another service type than "
                    + "the QP they name", tags, () -> d.dropCounts().wrongTransport()));
        }
        return all;
    }

    // ---- for the CM (see CONTRACT.md) -------------------------------------------------------------------

    /**
     * The settings the fabric was opened with.
     *
     * @return the fabric's configuration
     */
    public SoftRoceConfig config() {
        return config;
    }

    /**
     * The devices, typed.
     *
     * @return the devices, in configuration order (an immutable copy)
     */
    public List<SoftDevice> softDevices() {
        return List.copyOf(devices);
    }

    /**
     * The device that owns IPv4 address {@code ip} (as an int), or {@code null}.
     *
     * @param ip an IPv4 address as a big-endian int
     * @return the device, or {@code null} when none of this fabric's devices has the address
     */
    public SoftDevice deviceByAddress(int ip) {
        for (SoftDevice d : devices) {
            if (d.owns(ip)) {
                return d;
            }
        }
        return null;
    }

    /**
     * Plays a bonding failover under {@code address} (soft-roce has no hardware address of its own, so this is the
     * control that moves it): the CM reports {@code RDMA_CM_EVENT_ADDR_CHANGE} to every id bound to the address,
     * as the kernel does on {@code NETDEV_BONDING_FAILOVER}; traffic is not affected. Any thread.
     *
     * @return how many ids were told
     * @throws IllegalArgumentException when no device of this fabric has the address
     * @param address an IPv4 address of one of this fabric's devices
     */
    public int bondingFailover(InetAddress address) {
        requireOpen();
        if (cm == null) {
            throw new IllegalStateException("the soft-roce fabric has no connection manager");
        }
        return cm.bondingFailover(address);
    }

    /**
     * The device that owns {@code address}, or {@code null} (IPv6 addresses never match).
     *
     * @param address any address
     * @return the device, or {@code null}
     */
    public SoftDevice deviceByAddress(InetAddress address) {
        return address instanceof java.net.Inet4Address ? deviceByAddress(Ipv4.toInt(address)) : null;
    }

    /**
     * A single-thread scheduler for the CM's timers and event work; async-event listeners also run on it. Never
     * block it. A cancelled task leaves its queue at once.
     *
     * @return the CM's scheduler
     */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /**
     * Tasks waiting in the {@link #scheduler()}'s queue (diagnostics and tests).
     *
     * @return how many tasks are scheduled and not yet run or cancelled
     */
    public int scheduledTasks() {
        return schedulerPool.getQueue().size();
    }

    /**
     * Scales a real duration to this fabric's timer scale ({@code ibex.softroce.timerScale}).
     *
     * @param nanos a duration in nanoseconds
     * @return the scaled duration in nanoseconds, at least 1
     */
    public long scaledNanos(long nanos) {
        return config.scaled(nanos);
    }

    /**
     * The fault injector shared by every device link of this fabric (drop, delay, reorder, duplicate,
     * black-hole a path); configured from {@code ibex.softroce.fault.*} and changeable at any time.
     *
     * @return the fabric's fault injector
     */
    public FaultInjector faults() {
        return faults;
    }

    /**
     * The fault commands of this fabric ({@code cut A B}, {@code port DEVICE N down}, {@code drop P} …), for a
     * sample's stdin or a test; {@code ibex.softroce.fault.control} names a file whose appended lines are applied too.
     *
     * @return the fabric's fault command interpreter
     */
    public FaultCommands faultCommands() {
        return faultCommands;
    }

    /**
     * Datagrams the kernel dropped because a socket buffer of this process on the fabric's UDP port was full (the
     * devices' own sockets and their multicast groups' — every fabric of the process on that port alike):
     * losses on soft-roce's "wire", before anything in Ibex sees them, so no {@code drops()} counts them. Linux only
     * ({@link SocketDrops#UNKNOWN} elsewhere); reads {@code /proc}, so call it for statistics.
     *
     * @return the datagrams dropped so far, or {@link SocketDrops#UNKNOWN}
     */
    public long socketDrops() {
        return SocketDrops.ofProcess(config.udpPort());
    }

    /**
     * The live-resource tracker (the CM registers its ids and channels here).
     *
     * @return the fabric's resource tracker
     */
    public ResourceTracker tracker() {
        return tracker;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("the soft-roce fabric is closed");
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (controlFile != null) {
            controlFile.close();
        }
        if (cm != null) {
            try {
                cm.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the CM failed", e);
            }
        }
        tracker.closeAll();
        scheduler.shutdown();
        try {
            scheduler.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        shutdown();
    }

}
