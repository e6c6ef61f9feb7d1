package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.verbs.ffi.IbVerbs;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/** {@code struct ibv_pd}. Closing fails with EBUSY while MRs, AHs, QPs or SRQs on it are alive, as in verbs. */
final class NativeProtectionDomain extends NativeResource implements ProtectionDomain {
    private final NativeDeviceContext device;
    private final MemorySegment pd;
    /** What inline data may be copied from (see {@link RegisteredRanges}). */
    final RegisteredRanges registered = new RegisteredRanges();

    NativeProtectionDomain(NativeDeviceContext device) {
        super(device.fabric);
        this.device = device;
        this.pd = IbVerbs.allocPd(device.segment());
        tracked();
    }

    MemorySegment segment() {
        return pd;
    }

    NativeDeviceContext deviceContext() {
        return device;
    }

    @Override
    String describe() {
        return "PD on " + device.device().name();
    }

    @Override
    public DeviceContext device() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, Set<Access> access) {
        ensureOpen();
        if (segment == null || !segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered (a heap segment may move); "
                    + "allocate it from an Arena");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        int mask = Access.validatedMask(access == null ? Set.of() : access);
        return new NativeMemoryRegion(this, segment, mask);
    }

    @Override
    public MemoryWindow allocMemoryWindow(MemoryWindow.Type type) {
        ensureOpen();
        if (type == null) {
            throw new IllegalArgumentException("a memory window type is required");
        }
        return new NativeMemoryWindow(this, type);
    }

    @Override
    public AddressHandle createAddressHandle(AhAttr attr) {
        ensureOpen();
        if (attr == null) {
            throw new IllegalArgumentException("attr is required");
        }
        return new NativeAddressHandle(this, attr);
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int srqLimit) {
        ensureOpen();
        if (maxWr < 1 || maxSge < 1 || srqLimit < 0) {
            throw new IllegalArgumentException("an SRQ needs maxWr >= 1, maxSge >= 1 and srqLimit >= 0, got "
                    + maxWr + ", " + maxSge + ", " + srqLimit);
        }
        return new NativeSharedReceiveQueue(this, maxWr, maxSge, srqLimit);
    }

    @Override
    public QueuePair createQueuePair(QpInitAttr attr) {
        ensureOpen();
        if (attr == null) {
            throw new IllegalArgumentException("attr is required");
        }
        return NativeQueuePair.create(this, attr);
    }

    @Override
    void destroy() {
        IbVerbs.deallocPd(pd);
    }
}
