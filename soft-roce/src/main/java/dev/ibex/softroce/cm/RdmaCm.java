package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ResourceTracker;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connection manager of one soft fabric: the RDMA CM (event channels, {@link SoftCmId}s, port spaces,
 * address and route resolution, multicast) over the IB CM ({@link IbCm}), all under one lock. The fabric creates
 * it, hands it every CM MAD its devices receive ({@link #receive}) and tells it when a device goes away
 * ({@link #deviceRemoved}).
 */
public final class RdmaCm implements dev.ibex.softroce.CmService {
    final CmEnvironment env;
    final ReentrantLock lock = new ReentrantLock();
    final CmTimings timings;
    final Random random;
    final IbCm ibCm;
    final PortBindings ports;
    private final CmFaults faults = new CmFaults();
    private final Set<SoftCmId> ids = new LinkedHashSet<>();
    private final Set<SoftEventChannel> channels = new LinkedHashSet<>();
    private volatile boolean closed;
    private volatile Runnable onClose = () -> { };

    public RdmaCm(CmEnvironment env, CmTimings timings) {
        this(env, timings, dev.ibex.softroce.transport.SoftDevice.seededRandom());
    }

    RdmaCm(CmEnvironment env, CmTimings timings, Random random) {
        this.env = env;
        this.timings = timings;
        this.random = random;
        this.ibCm = new IbCm(env.timer(), timings, lock, random);
        this.ports = new PortBindings(random);
    }

    /** {@code rdma_create_event_channel}. */
    @Override
    public EventChannel createEventChannel() {
        if (closed) {
            throw new IllegalStateException("the fabric is closed");
        }
        SoftEventChannel c = new SoftEventChannel(this);
        locked(() -> channels.add(c));
        env.tracker().opened(c);
        return c;
    }

    /** A CM MAD (256 bytes at {@code offset}) that {@code device}'s QP1 received from {@code source}. */
    public void receive(CmDevice device, InetAddress source, MemorySegment mad, long offset) {
        ibCm.receive(device, source, mad, offset);
    }

    /**
     * {@code device} is gone: ids bound to it get DEVICE_REMOVAL (they must be closed), nothing is sent through
     * it any more. Wildcard listeners keep listening on the other devices.
     */
    public void deviceRemoved(CmDevice device) {
        locked(() -> {
            ibCm.portRemoved(device);
            for (SoftCmId id : new ArrayList<>(ids)) {
                if (id.device() != null && id.cmDevice() == device) {
                    id.deviceRemoved();
                }
            }
        });
    }

    @Override
    public int bondingFailover(java.net.InetAddress address) {
        CmDevice device = env.device(address);
        if (device == null) {
            throw new IllegalArgumentException("no device of this fabric has address " + address.getHostAddress());
        }
        return locked(() -> {
            int told = 0;
            for (SoftCmId id : new ArrayList<>(ids)) {
                if (id.device() != null && id.cmDevice() == device && id.addressChanged()) {
                    told++;
                }
            }
            return told;
        });
    }

    /** The fault hooks (ARP timeouts, path query failures). */
    public CmFaults faults() {
        return faults;
    }

    /** The IB CM below (diagnostics and tests). */
    public IbCm ibCm() {
        return ibCm;
    }

    public CmTimings timings() {
        return timings;
    }

    /** Live RDMA CM ids. */
    public int liveIds() {
        return locked(() -> ids.size());
    }

    ResourceTracker tracker() {
        return env.tracker();
    }

    SoftCmId createId(SoftEventChannel channel, PortSpace ps, Object context) {
        SoftCmId id = new SoftCmId(this, channel, ps, context);
        locked(() -> ids.add(id));
        env.tracker().opened(id);
        return id;
    }

    void register(SoftCmId id) {
        ids.add(id);
        env.tracker().opened(id);
    }

    void forget(SoftCmId id) {
        ids.remove(id);
        env.tracker().closed(id);
    }

    /** librdmacm's part of {@code rdma_get_cm_event}: runs as the application takes an event. */
    CmEvent delivered(CmEvent e) {
        if (e.type() == CmEventType.CONNECT_REQUEST || e.type() == CmEventType.MULTICAST_JOIN) {
            return locked(() -> ((SoftCmId) (e.type() == CmEventType.CONNECT_REQUEST ? e.listenId() : e.id()))
                    .delivered(e));
        }
        return e;
    }

    void closeChannel(SoftEventChannel c) {
        List<SoftCmId> mine = locked(() -> {
            channels.remove(c);
            List<SoftCmId> l = new ArrayList<>();
            for (SoftCmId id : ids) {
                if (id.channelRef() == c) {
                    l.add(id);
                }
            }
            return l;
        });
        for (SoftCmId id : mine) {
            id.close();
        }
    }

    /** Closes every channel (and so every id), then detaches from the fabric. */
    @Override
    public void close() {
        closed = true;
        for (SoftEventChannel c : locked(() -> new ArrayList<>(channels))) {
            c.close();
        }
        onClose.run();
    }

    void onClose(Runnable r) {
        onClose = r;
    }

    void locked(Runnable r) {
        lock.lock();
        try {
            r.run();
        } finally {
            lock.unlock();
        }
    }

    <T> T locked(java.util.function.Supplier<T> s) {
        lock.lock();
        try {
            return s.get();
        } finally {
            lock.unlock();
        }
    }
}
