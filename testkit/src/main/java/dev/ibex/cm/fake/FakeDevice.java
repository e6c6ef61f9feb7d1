package dev.ibex.cm.fake;

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
import java.net.InetAddress;

/** A fake device: one port, one GID (its IPv4-mapped address), RoCE link layer, 1024-byte active MTU. */
public final class FakeDevice implements DeviceContext {
    /** Inline data a fake QP accepts at most. */
    public static final int MAX_INLINE = 64;

    private final FakeFabric fabric;
    private final Device device;
    private final InetAddress ip;
    private final Gid gid;
    private final boolean apm;
    private final boolean roce;
    private final FakeAsyncEvents async;

    FakeDevice(FakeFabric fabric, String name, InetAddress ip, boolean apm, boolean roce) {
        this.roce = roce;
        this.fabric = fabric;
        this.device = new Device(name, 0x0002_c903_0000_0000L | ip.hashCode(), Device.NodeType.CA, Device.Transport.IB);
        this.ip = ip;
        this.gid = Gid.of(ip);
        this.apm = apm;
        this.async = new FakeAsyncEvents();
    }

    /** {@return the device's IPv4 address, which ids bind and resolve to} */
    public InetAddress ip() {
        return ip;
    }

    /** {@return the port's GID: the IPv4-mapped form of {@link #ip()}} */
    public Gid gid() {
        return gid;
    }

    FakeFabric fabric() {
        return fabric;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public DeviceAttributes queryDevice() {
        return new DeviceAttributes("fake-1.0", device.nodeGuid(), 0x02c9, 1, 1L << 40, 1 << 16, 16384,
                apm ? DeviceAttributes.CAP_AUTO_PATH_MIG : 0, 4, 1 << 16, 1 << 16, 1 << 16, 1 << 10, 16, 16, 1, 1 << 16,
                1 << 10, 16384, 1, 256, 64, 1);
    }

    @Override
    public PortAttributes queryPort(int port) {
        checkPort(port);
        // a device with APM plays an InfiniBand HCA (Linux migrates paths on IB only), one without a RoCE NIC
        return new PortAttributes(PortAttributes.STATE_ACTIVE, Mtu.MTU_4096, Mtu.MTU_1024, 1, 0, 1L << 31, 1, 0,
                apm && !roce ? PortAttributes.LINK_LAYER_INFINIBAND : PortAttributes.LINK_LAYER_ETHERNET);
    }

    @Override
    public Gid queryGid(int port, int index) {
        checkPort(port);
        if (index != 0) {
            throw new IllegalArgumentException("GID index " + index + " is not populated");
        }
        return gid;
    }

    @Override
    public int queryPkey(int port, int index) {
        checkPort(port);
        return 0xFFFF;
    }

    private static void checkPort(int port) {
        if (port != 1) {
            throw new IllegalArgumentException("fake devices have port 1 only, not " + port);
        }
    }

    @Override
    public ProtectionDomain allocPd() {
        fabric.checkOpen();
        return new FakePd(this);
    }

    @Override
    public CompletionChannel createCompletionChannel() {
        fabric.checkOpen();
        return new FakeCompletionChannel(fabric);
    }

    @Override
    public CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel, int vector) {
        fabric.checkOpen();
        if (minEntries <= 0 || vector != 0) {
            throw new IllegalArgumentException("minEntries must be positive and vector 0");
        }
        FakeCq cq = new FakeCq(fabric, minEntries, (FakeCompletionChannel) channel);
        cq.device = this;
        return cq;
    }

    @Override
    public int numCompVectors() {
        return 1;
    }

    @Override
    public FakeAsyncEvents asyncEvents() {
        return async;
    }

    @Override
    public String toString() {
        return device.name() + "(" + ip.getHostAddress() + ")";
    }

    /** The device's async events: the test or the fake raise them. */
    public static final class FakeAsyncEvents extends FakeSource implements AsyncEventSource {
        /** An empty event source; each {@link FakeDevice} makes its own. */
        public FakeAsyncEvents() {}

        private final java.util.concurrent.ConcurrentLinkedQueue<dev.ibex.cm.spi.AsyncEvent> queue =
                new java.util.concurrent.ConcurrentLinkedQueue<>();

        @Override
        public dev.ibex.cm.spi.AsyncEvent poll() {
            return queue.poll();
        }

        @Override
        boolean ready() {
            return !queue.isEmpty();
        }

        void inject(dev.ibex.cm.spi.AsyncEvent e) {
            queue.add(e);
            signal();
        }
    }
}
