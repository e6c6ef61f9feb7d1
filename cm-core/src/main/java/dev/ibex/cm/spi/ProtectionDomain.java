package dev.ibex.cm.spi;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** {@code struct ibv_pd}. Closing it fails while objects created on it are alive, as in verbs. */
public interface ProtectionDomain extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.PROTECTION_DOMAIN;
    }

    DeviceContext device();

    /**
     * {@code ibv_reg_mr}: registers native memory. The segment must stay alive (its arena open) until the
     * region is closed; heap segments are rejected.
     */
    MemoryRegion registerMemory(MemorySegment segment, Set<Access> access);

    /**
     * {@code ibv_alloc_mw}: a memory window of {@code type}, unbound (type 2) or bound to nothing (type 1).
     *
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the device has no memory windows of that type
     *     ({@link DeviceAttributes#supportsMemoryWindows})
     */
    default MemoryWindow allocMemoryWindow(MemoryWindow.Type type) {
        throw new dev.ibex.cm.RdmaException("ibv_alloc_mw", dev.ibex.cm.Errno.ENOTSUP, device().device().name()
                + " has no memory windows: expose memory through a region of its own instead");
    }

    AddressHandle createAddressHandle(AhAttr attr);

    SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int srqLimit);

    /** {@code ibv_create_qp}: a QP in RESET that the caller transitions with {@link QueuePair#modify}. */
    QueuePair createQueuePair(QpInitAttr attr);
}
