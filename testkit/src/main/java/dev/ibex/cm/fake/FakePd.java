package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/** A protection domain; like verbs, it refuses to close while objects created on it live. */
final class FakePd implements ProtectionDomain {
    private final FakeDevice device;
    int children;
    private boolean closed;

    FakePd(FakeDevice device) {
        this.device = device;
        device.fabric().tracker.opened(this);
    }

    @Override
    public FakeDevice device() {
        return device;
    }

    private FakeFabric fabric() {
        return device.fabric();
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("protection domain is closed");
        }
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, Set<Access> access) {
        int mask = Access.validatedMask(access);
        if (!segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered");
        }
        FakeFabric f = fabric();
        FakeMr mr;
        synchronized (f.lock) {
            check();
            mr = new FakeMr(this, segment, mask, f.nextKey++);
            f.mrs.put(mr.lkey(), mr);
            children++;
        }
        f.tracker.opened(mr);
        return mr;
    }

    @Override
    public AddressHandle createAddressHandle(AhAttr attr) {
        FakeFabric f = fabric();
        FakeAh ah;
        synchronized (f.lock) {
            check();
            ah = new FakeAh(this, attr, f.nextAh++);
            f.ahs.put(ah.handle(), ah);
            children++;
        }
        f.tracker.opened(ah);
        return ah;
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int srqLimit) {
        synchronized (fabric().lock) {
            check();
            children++;
        }
        return new FakeSrq(this, maxWr, maxSge);
    }

    @Override
    public QueuePair createQueuePair(QpInitAttr attr) {
        return FakeQp.create(this, attr, null);
    }

    @Override
    public void close() {
        FakeFabric f = fabric();
        synchronized (f.lock) {
            if (closed) {
                return;
            }
            if (children > 0) {
                throw new RdmaException("ibv_dealloc_pd", Errno.EBUSY, children + " objects still use the PD");
            }
            closed = true;
        }
        f.tracker.closed(this);
    }
}
