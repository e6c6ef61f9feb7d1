package dev.ibex.softroce.cm;

import dev.ibex.cm.fake.FakeDevice;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import dev.ibex.softroce.mad.CmMad;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One "host" for RDMA CM tests: cm-core's fake devices (and their PDs, CQs and QPs) stand in for the soft verbs,
 * {@link MadNetwork} for the devices' QP1s; the CM under test is a real {@link RdmaCm}.
 */
final class CmTestHost implements CmEnvironment, AutoCloseable {
    final FakeFabric fabric;
    final ResourceTracker tracker = new ResourceTracker();
    final CmTimer timer;
    final MadNetwork net;
    final List<Device> devices = new CopyOnWriteArrayList<>();
    final RdmaCm cm;

    /** A fake device with its QP1 on the network. */
    final class Device implements CmDevice {
        final FakeDevice ctx;

        Device(FakeDevice ctx) {
            this.ctx = ctx;
        }

        @Override
        public InetAddress address() {
            return ctx.ip();
        }

        @Override
        public long caGuid() {
            return ctx.device().nodeGuid();
        }

        @Override
        public void send(InetAddress destination, CmMad mad) {
            net.transmit(ctx.ip(), destination, mad);
        }

        @Override
        public DeviceContext context() {
            return ctx;
        }

        @Override
        public Mtu activeMtu() {
            return ctx.ip().isLoopbackAddress() ? Mtu.MTU_4096 : Mtu.MTU_1024;
        }

        @Override
        public String toString() {
            return "device " + ctx.ip().getHostAddress();
        }
    }

    CmTestHost(MadNetwork net, CmTimer timer, CmTimings timings, String... ips) {
        this.net = net;
        this.timer = timer;
        this.fabric = FakeFabric.scripted(ips);
        for (int i = 0; i < ips.length; i++) {
            Device d = new Device(fabric.device(i));
            devices.add(d);
        }
        this.cm = new RdmaCm(this, timings);
        for (Device d : devices) {
            net.attach(d.address(), (src, mad) -> cm.receive(d, src, mad, 0));
        }
    }

    @Override
    public List<? extends CmDevice> devices() {
        return devices;
    }

    private final java.util.Map<dev.ibex.cm.spi.QueuePair, Runnable> commEst =
            new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void onCommEst(dev.ibex.cm.spi.QueuePair qp, Runnable r) {
        commEst.put(qp, r);
    }

    @Override
    public void forgetCommEst(dev.ibex.cm.spi.QueuePair qp) {
        commEst.remove(qp);
    }

    /** As the device does when {@code qp} receives its first packet in RTR; false if nobody registered. */
    boolean raiseCommEst(dev.ibex.cm.spi.QueuePair qp) {
        Runnable r = commEst.remove(qp);
        if (r != null) {
            r.run();
        }
        return r != null;
    }

    @Override
    public ResourceTracker tracker() {
        return tracker;
    }

    @Override
    public CmTimer timer() {
        return timer;
    }

    Device device(int i) {
        return devices.get(i);
    }

    /** Takes a device away: the network forgets it and the CM reports DEVICE_REMOVAL. */
    void remove(Device d) {
        devices.remove(d);
        net.detach(d.address());
        cm.deviceRemoved(d);
    }

    /** A PD, a CQ and an RC or UD QP on device {@code i} (not yet bound to an id). */
    QpInitAttr qpAttr(int i, QpType type) {
        DeviceContext ctx = device(i).context();
        CompletionQueue cq = ctx.createCompletionQueue(64, null, 0);
        return new QpInitAttr(cq, cq, null, new QpCap(16, 16, 1, 1, 0), type, true, null);
    }

    ProtectionDomain pd(int i) {
        return device(i).context().allocPd();
    }

    /** CM ids, channels and memberships still open here, plus QPs on the fake devices. */
    int leftovers() {
        ResourceCounts c = tracker.snapshot();
        return c.total() + fabric.count(ResourceKind.QUEUE_PAIR);
    }

    List<String> leftoverKinds() {
        List<String> l = new ArrayList<>();
        l.add(tracker.snapshot().toString());
        l.add("qps=" + fabric.count(ResourceKind.QUEUE_PAIR));
        l.add("ibIds=" + cm.ibCm().liveIds());
        l.add("ports=" + cm.ports.size());
        return l;
    }

    @Override
    public void close() {
        cm.close();
        fabric.close();
    }
}
