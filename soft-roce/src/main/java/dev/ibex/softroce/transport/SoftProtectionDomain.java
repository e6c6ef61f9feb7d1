package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.TagMatchingSrq;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ibv_pd}: groups MRs, MWs, AHs, SRQs and QPs. Closing fails with EBUSY while any of them is alive, as
 * {@code ibv_dealloc_pd} does. Thread-safe.
 */
public final class SoftProtectionDomain implements ProtectionDomain {
    /** An unstarted thread, to ask whether memory is reachable from threads other than its owner. */
    private static final Thread OTHER_THREAD = new Thread(() -> { }, "soft-roce-access-probe");

    private final SoftDevice device;
    private final AtomicInteger children = new AtomicInteger();
    private volatile boolean closed;

    SoftProtectionDomain(SoftDevice device) {
        this.device = device;
        device.tracker().opened(this);
    }

    @Override
    public DeviceContext device() {
        return device;
    }

    public SoftDevice softDevice() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, Set<Access> access) {
        requireOpen();
        if (segment == null || access == null) {
            throw new IllegalArgumentException("segment and access are required");
        }
        if (!segment.isNative()) {
            throw new IllegalArgumentException("only native memory can be registered (heap segments move)");
        }
        if (!segment.isAccessibleBy(OTHER_THREAD)) {
            throw new IllegalArgumentException("the segment is confined to one thread; the soft NIC reads and writes"
                    + " it from its own threads: allocate it from a shared, global or automatic arena");
        }
        if (segment.byteSize() == 0) {
            throw new IllegalArgumentException("cannot register an empty segment");
        }
        int mask = Access.validatedMask(access);
        return new SoftMemoryRegion(this, segment, mask);
    }

    @Override
    public MemoryWindow allocMemoryWindow(MemoryWindow.Type type) {
        requireOpen();
        if (type == null) {
            throw new IllegalArgumentException("a memory window type is required");
        }
        return new SoftMemoryWindow(this, type);
    }

    @Override
    public AddressHandle createAddressHandle(AhAttr attr) {
        requireOpen();
        return new SoftAddressHandle(this, device.resolve(attr, "ibv_create_ah"));
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int srqLimit) {
        requireOpen();
        return new SoftSharedReceiveQueue(this, maxWr, maxSge, srqLimit);
    }

    @Override
    public TagMatchingSrq createTagMatchingSrq(CompletionQueue cq, int maxWr, int maxSge, int maxNumTags,
            int maxOps) {
        requireOpen();
        if (!(cq instanceof SoftCompletionQueue soft)) {
            throw new RdmaException("ibv_create_srq_ex", Errno.EINVAL, "the CQ is not a soft-roce CQ: " + cq);
        }
        return new SoftTagMatchingSrq(this, soft, maxWr, maxSge, maxNumTags, maxOps);
    }

    @Override
    public QueuePair createQueuePair(QpInitAttr attr) {
        requireOpen();
        if (attr.srq() instanceof TagMatchingSrq && attr.type() != QpType.RC) {
            throw new RdmaException("ibv_create_qp", Errno.EINVAL, "a tag-matching SRQ serves RC QPs only (tm_caps.flags"
                    + " is IBV_TM_CAP_RC), not " + attr.type());
        }
        return new SoftQueuePair(this, attr);
    }

    void addChild() {
        children.incrementAndGet();
    }

    void removeChild() {
        children.decrementAndGet();
    }

    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("protection domain is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        int n = children.get();
        if (n > 0) {
            throw new RdmaException("ibv_dealloc_pd", Errno.EBUSY,
                    n + " object(s) still use the protection domain: close its QPs, SRQs, MRs and AHs first");
        }
        closed = true;
        device.tracker().closed(this);
    }

    @Override
    public String toString() {
        return "SoftProtectionDomain[" + device.name() + "]";
    }
}
