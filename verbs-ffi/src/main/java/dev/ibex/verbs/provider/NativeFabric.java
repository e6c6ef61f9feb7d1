package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.verbs.ffi.Devices;
import dev.ibex.verbs.ffi.ForkSupport;
import dev.ibex.verbs.ffi.RdmaCm;
import dev.ibex.verbs.ffi.RdmaErrors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opened rdma-core provider: the device contexts librdmacm opened ({@code rdma_get_devices}), the
 * resource tracker and the handle table shared by everything created from it.
 *
 * <p>The contexts are librdmacm's own: every {@code rdma_cm_id} bound to a device points at one of them
 * ({@code id->verbs}), so PDs, CQs and QPs created here can be used with ids. Closing the fabric closes
 * every resource still open in {@link dev.ibex.cm.spi.ResourceKind} order, then frees the device list
 * (librdmacm keeps the devices open until the library is unloaded).
 *
 * <p><b>Device removal.</b> {@code rdma link delete} (or a hot-unplug) gives every id on the device the CM's
 * DEVICE_REMOVAL; on a device without {@code disassociate_ucontext} (rxe) the kernel then waits until every process
 * has closed the device. Once the device is reported removed, none of its PDs, CQs and completion channels is open
 * and no poller watches its async fd ({@link #releaseIfUnused}), the fabric swaps its device list for a fresh one:
 * librdmacm marks the device dead and closes its context with the last reference (ours, or the last id's
 * {@code rdma_destroy_id}), and the kernel's delete returns.
 */
final class NativeFabric implements Fabric {
    private static final Logger LOG = LoggerFactory.getLogger(NativeFabric.class);

    private final ResourceTracker tracker = new ResourceTracker();
    /**
     * Process-wide, not per fabric: device contexts (and so their async-event fds) are librdmacm's and shared by
     * every fabric of the process, so a handle read from a native object must never match another fabric's object —
     * and {@link SharedAsyncFd} finds the fabric of any event's object by it.
     */
    private static final HandleTable HANDLES = new HandleTable();
    /** Our {@code rdma_get_devices} list: it holds a reference on each device, which a removal must give back. */
    private volatile MemorySegment deviceList;
    private final List<NativeDeviceContext> devices = new CopyOnWriteArrayList<>();
    /**
     * Contexts released after their device's removal: ids that still point at one (librdmacm frees it with the last
     * of them) map back to it, closed, instead of adopting a fresh object for freed memory.
     */
    private final List<NativeDeviceContext> released = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Small native scratch that lives as long as the fabric (shared: any thread may use it). */
    private final Arena arena = Arena.ofShared();
    /** QP and SRQ scratch, recycled: a shared arena per QP costs a handshake with every thread when it closes. */
    private final ScratchPool scratch = new ScratchPool(arena);
    /** {@value RdmaCoreProvider#POLLER_SPIN_NANOS}: how long each poller spins before blocking (0: never). */
    private final long pollerSpinNanos;
    /** {@value RdmaCoreProvider#POLLER_ADAPTIVE_SPIN_NANOS}: without a fixed spin, an adaptive window's maximum. */
    private final long pollerAdaptiveSpinNanos;

    private NativeFabric(MemorySegment deviceList, long pollerSpinNanos, long pollerAdaptiveSpinNanos) {
        this.deviceList = deviceList;
        this.pollerSpinNanos = pollerSpinNanos;
        this.pollerAdaptiveSpinNanos = pollerAdaptiveSpinNanos;
    }

    /**
     * Opens the provider.
     *
     * @throws dev.ibex.cm.RdmaException ENOSYS without kernel RDMA support, ENODEV without devices or RDMA CM,
     *     ELIBACC without the libraries; the message says what to do
     */
    static NativeFabric open(ProviderConfig config) {
        long spin = config.getLong(RdmaCoreProvider.POLLER_SPIN_NANOS, 0);
        if (spin < 0) {
            throw new IllegalArgumentException(RdmaCoreProvider.POLLER_SPIN_NANOS + " must not be negative, got " + spin);
        }
        long adaptiveSpin = config.getLong(RdmaCoreProvider.POLLER_ADAPTIVE_SPIN_NANOS, 0);
        if (adaptiveSpin < 0) {
            throw new IllegalArgumentException(RdmaCoreProvider.POLLER_ADAPTIVE_SPIN_NANOS + " must not be negative, got "
                    + adaptiveSpin);
        }
        if (config.getBoolean(RdmaCoreProvider.FORK_INIT, false)) {
            ForkSupport.forkInit();
        }
        // ibv_get_device_list tells "no kernel support" (ENOSYS) from "no device" apart; librdmacm says ENODEV for both
        MemorySegment list = Devices.getDeviceList();
        long count = list.byteSize() / 8;
        Devices.freeDeviceList(list);
        if (count == 0) {
            throw RdmaErrors.zeroDevices();
        }
        MemorySegment contexts = RdmaCm.getDevices();
        NativeFabric fabric = new NativeFabric(contexts, spin, adaptiveSpin);
        for (long i = 0; i < contexts.byteSize() / 8; i++) {
            fabric.devices.add(new NativeDeviceContext(fabric, contexts.getAtIndex(ValueLayout.ADDRESS, i)));
        }
        LOG.debug("rdma-core fabric opened with devices {}", fabric.devices.stream().map(d -> d.device().name()).toList());
        return fabric;
    }

    /** A fabric without devices: for tests of what needs no device (pollers, handles, tracking). */
    static NativeFabric detached() {
        return detached(0);
    }

    /** A {@link #detached()} fabric whose pollers spin for {@code pollerSpinNanos} before blocking. */
    static NativeFabric detached(long pollerSpinNanos) {
        return new NativeFabric(MemorySegment.NULL, pollerSpinNanos, 0);
    }

    /** A {@link #detached()} fabric whose pollers' spin adapts up to {@code maxNanos} ({@link IdleSpin#adaptive}). */
    static NativeFabric detachedAdaptive(long maxNanos) {
        return new NativeFabric(MemorySegment.NULL, 0, maxNanos);
    }

    ResourceTracker tracker() {
        return tracker;
    }

    /**
     * The fabric's shared arena, for per-device scratch that passes through downcalls. Native memory of an
     * automatic arena would make such calls allocate (the JIT does not always elide keeping its session alive).
     */
    Arena arena() {
        return arena;
    }

    /** The pool QPs and SRQs lease their native scratch from. */
    ScratchPool scratch() {
        return scratch;
    }

    HandleTable handles() {
        return HANDLES;
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the rdma-core fabric is closed");
        }
    }

    /**
     * The context object for {@code verbs} (an {@code id->verbs} pointer), or {@code null} for NULL. A context
     * librdmacm opened after this fabric (a device added later) is adopted.
     */
    NativeDeviceContext deviceFor(MemorySegment verbs) {
        if (verbs.address() == 0) {
            return null;
        }
        for (NativeDeviceContext d : devices) {
            if (d.address() == verbs.address()) {
                return d;
            }
        }
        synchronized (devices) {
            for (NativeDeviceContext d : devices) {
                if (d.address() == verbs.address()) {
                    return d;
                }
            }
            for (NativeDeviceContext d : released) {
                if (d.address() == verbs.address()) {
                    return d;
                }
            }
            NativeDeviceContext d = new NativeDeviceContext(this, verbs);
            devices.add(d);
            return d;
        }
    }

    /**
     * Lets librdmacm close a removed device once nothing of ours is left on it: no PD, CQ or completion channel, no
     * poller watching its async fd. Idempotent; any thread.
     *
     * @param d a device context of this fabric
     */
    void releaseIfUnused(NativeDeviceContext d) {
        synchronized (devices) {
            if (closed.get() || !d.removed() || !d.isOpen() || d.children() > 0 || !d.nativeAsyncEvents().unwatched()) {
                return;
            }
            devices.remove(d);
            released.add(d);
            d.close();
            MemorySegment old = deviceList;
            MemorySegment fresh = MemorySegment.NULL;
            try {
                fresh = RdmaCm.getDevices(); // librdmacm re-reads the device list and marks the removed one dead
            } catch (RuntimeException none) {
                LOG.debug("no RDMA device left after {} was removed: {}", d.device().name(), none.getMessage());
            }
            for (long i = 0; i < fresh.byteSize() / 8; i++) {
                long a = fresh.getAtIndex(ValueLayout.ADDRESS, i).address();
                released.removeIf(r -> r.address() == a); // the address belongs to a live device again
            }
            deviceList = fresh;
            if (old.address() != 0) {
                RdmaCm.freeDevices(old); // gives back our reference: the context closes now, or with the last id
            }
            LOG.info("RDMA device {} was removed: released its context", d.device().name());
        }
    }

    @Override
    public String providerName() {
        return RdmaCoreProvider.NAME;
    }

    @Override
    public List<DeviceContext> devices() {
        return List.copyOf(devices);
    }

    @Override
    public EventChannel createEventChannel() {
        ensureOpen();
        return NativeEventChannel.create(this);
    }

    @Override
    public Poller createPoller() {
        ensureOpen();
        return new EpollPoller(this, pollerSpinNanos > 0 ? IdleSpin.fixed(pollerSpinNanos)
                : IdleSpin.adaptive(pollerAdaptiveSpinNanos));
    }

    @Override
    public ResourceCounts resources() {
        return tracker.snapshot();
    }

    /**
     * The kernel's port counters of each device, read from sysfs when read ({@code port.*} from
     * {@code ports/<n>/counters}, {@code hw.*} from {@code hw_counters}; tags {@code device} and {@code port}); none
     * where sysfs does not show them.
     */
    @Override
    public List<dev.ibex.cm.spi.RdmaCounter> counters() {
        return PortCounters.of(java.nio.file.Path.of("/sys/class/infiniband"),
                devices.stream().map(d -> d.device().name()).toList());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        tracker.closeAll();
        synchronized (devices) {
            if (deviceList.address() != 0) {
                // a fresh list first: librdmacm marks devices being removed as dead, so that giving back our
                // reference lets it close them now rather than when the process exits
                MemorySegment fresh = MemorySegment.NULL;
                try {
                    fresh = RdmaCm.getDevices();
                } catch (RuntimeException none) {
                    // no device left: nothing to refresh
                }
                RdmaCm.freeDevices(deviceList);
                if (fresh.address() != 0) {
                    RdmaCm.freeDevices(fresh);
                }
            }
        }
        arena.close();
        LOG.debug("rdma-core fabric closed");
    }
}
