package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.softroce.transport.MadPort;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM's view of a {@link SoftFabric} (soft-roce/CONTRACT.md): one {@link FabricPort} per device address, the
 * fabric's scheduler (with its timer scale) for the CM's timers, its tracker, QP1 of every device, and the
 * devices' async events for COMM_EST (connection established by a first packet) and DEVICE_FATAL (the device is
 * gone: DEVICE_REMOVAL).
 */
final class FabricEnvironment implements CmEnvironment {
    private static final Logger LOG = LoggerFactory.getLogger(FabricEnvironment.class);

    private final SoftFabric fabric;
    private final List<FabricPort> ports = new ArrayList<>();
    private final Map<QueuePair, Runnable> commEst = new ConcurrentHashMap<>();
    private final Map<QueuePair, Runnable> pathMigrated = new ConcurrentHashMap<>();
    private final List<Runnable> detach = new ArrayList<>();
    private final CmTimer timer;

    FabricEnvironment(SoftFabric fabric) {
        this.fabric = fabric;
        for (SoftDevice d : fabric.softDevices()) {
            for (int i = 0; i < d.addresses().length; i++) {
                ports.add(new FabricPort(d, i));
            }
        }
        this.timer = new CmTimerQueue(fabric.scheduler(), millis -> fabric.scaledNanos(millis * 1_000_000L));
    }

    /** Starts feeding {@code cm}: MADs from every device's QP1, COMM_EST and device loss from its async events. */
    void attach(RdmaCm cm) {
        for (SoftDevice d : fabric.softDevices()) {
            MadPort.Listener l = (MemorySegment mad, long offset, int localIp, int remoteIp) -> {
                FabricPort p = port(localIp);
                if (p != null) {
                    cm.receive(p, Ipv4.toInetAddress(remoteIp), mad, offset);
                }
            };
            d.madPort().subscribe(l);
            Consumer<AsyncEvent> events = e -> {
                if (e.type() == AsyncEventType.COMM_EST && e.qp() != null) {
                    Runnable r = commEst.remove(e.qp());
                    if (r != null) {
                        r.run();
                    }
                } else if (e.type() == AsyncEventType.PATH_MIG && e.qp() != null) {
                    Runnable r = pathMigrated.get(e.qp());
                    if (r != null) {
                        r.run();
                    }
                } else if (e.type() == AsyncEventType.DEVICE_FATAL) {
                    LOG.debug("device {} is gone: DEVICE_REMOVAL for its ids", d.name());
                    for (FabricPort p : ports) {
                        if (p.softDevice() == d) {
                            cm.deviceRemoved(p);
                        }
                    }
                }
            };
            // only these: every other event (QP_LAST_WQE_REACHED at each teardown …) stays off the executor
            d.events().addListener(EnumSet.of(AsyncEventType.COMM_EST, AsyncEventType.PATH_MIG,
                    AsyncEventType.DEVICE_FATAL), events);
            detach.add(() -> {
                d.madPort().unsubscribe(l);
                d.events().removeListener(events);
            });
        }
    }

    void detach() {
        detach.forEach(Runnable::run);
        detach.clear();
        commEst.clear();
        pathMigrated.clear();
    }

    private FabricPort port(int ip) {
        for (FabricPort p : ports) {
            if (p.ip() == ip) {
                return p;
            }
        }
        return null;
    }

    @Override
    public List<? extends CmDevice> devices() {
        return ports;
    }

    @Override
    public CmDevice device(InetAddress address) {
        return address instanceof Inet4Address ? port(Ipv4.toInt(address)) : null;
    }

    @Override
    public ResourceTracker tracker() {
        return fabric.tracker();
    }

    @Override
    public CmTimer timer() {
        return timer;
    }

    @Override
    public void onCommEst(QueuePair qp, Runnable onCommEst) {
        commEst.put(qp, onCommEst);
    }

    @Override
    public void forgetCommEst(QueuePair qp) {
        commEst.remove(qp);
        pathMigrated.remove(qp);
    }

    @Override
    public void onPathMigrated(QueuePair qp, Runnable onPathMigrated) {
        pathMigrated.put(qp, onPathMigrated);
    }
}
