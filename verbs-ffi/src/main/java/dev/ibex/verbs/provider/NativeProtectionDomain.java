package dev.ibex.verbs.provider;

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
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.TagMatchingSrq;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.verbs.ffi.ProtectionDomains;
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
        this.pd = ProtectionDomains.allocPd(device.segment());
        tracked();
    }

    MemorySegment segment() {
        return pd;
    }

    @Override
    NativeDeviceContext owner() {
        return device;
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

    /**
     * {@code ibv_create_srq_ex} with {@code IBV_SRQT_TM}. The device's {@code tm_caps} decide first: with
     * {@code max_num_tags} 0 (rxe) nothing native is called and the answer is a typed ENOTSUP. A device that does
     * report tag matching (ConnectX) is refused the same way for now: driving it needs {@code ibv_post_srq_ops} and
     * {@code ibv_create_cq_ex} with {@code IBV_WC_EX_WITH_TM_INFO}, which this provider does not bind yet.
     */
    @Override
    public TagMatchingSrq createTagMatchingSrq(CompletionQueue cq, int maxWr, int maxSge, int maxNumTags,
            int maxOps) {
        ensureOpen();
        TmCaps caps = device().queryTmCaps();
        String name = device().device().name();
        if (!caps.supported()) {
            throw new RdmaException("ibv_create_srq_ex", Errno.ENOTSUP, name + " has no tag matching (tm_caps: "
                    + "max_num_tags " + caps.maxNumTags() + ", flags 0x" + Integer.toHexString(caps.flags())
                    + "): match tags in software, or use the soft-roce provider, which implements it");
        }
        throw new RdmaException("ibv_create_srq_ex", Errno.ENOTSUP, name + " reports tag matching (max_num_tags "
                + caps.maxNumTags() + "), but Ibex's rdma-core provider does not drive hardware tag matching yet "
                + "(ibv_post_srq_ops and TM completions are not bound): use the soft-roce provider");
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
        ProtectionDomains.deallocPd(pd);
    }
}
