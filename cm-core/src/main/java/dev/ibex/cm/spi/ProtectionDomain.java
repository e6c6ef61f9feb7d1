package dev.ibex.cm.spi;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** {@code struct ibv_pd}. Closing it fails while objects created on it are alive, as in verbs. */
public interface ProtectionDomain extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.PROTECTION_DOMAIN;
    }

    /** {@return the opened device the PD belongs to} */
    DeviceContext device();

    /**
     * {@code ibv_reg_mr}: registers native memory. The segment must stay alive (its arena open) until the
     * region is closed; heap segments are rejected.
     *
     * @param segment native memory to register
     * @param access what the device and peers may do with it
     * @return the region with its keys
     * @throws IllegalArgumentException for a heap segment, or remote write/atomic access without local write
     */
    MemoryRegion registerMemory(MemorySegment segment, Set<Access> access);

    /**
     * {@code ibv_alloc_mw}: a memory window of {@code type}, unbound (type 2) or bound to nothing (type 1).
     *
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the device has no memory windows of that type
     *     ({@link DeviceAttributes#supportsMemoryWindows})
     * @param type the window's type
     * @return the new window
     */
    default MemoryWindow allocMemoryWindow(MemoryWindow.Type type) {
        throw new dev.ibex.cm.RdmaException("ibv_alloc_mw", dev.ibex.cm.Errno.ENOTSUP, device().device().name()
                + " has no memory windows: expose memory through a region of its own instead");
    }

    /**
     * {@code ibv_create_ah}: a handle UD sends use to reach the path's remote port.
     *
     * @param attr the path
     * @return the handle
     */
    AddressHandle createAddressHandle(AhAttr attr);

    /**
     * {@code ibv_create_srq}.
     *
     * @param maxWr the capacity in receives
     * @param maxSge scatter/gather entries per receive
     * @param srqLimit the limit event's threshold, 0 for no event
     * @return the new SRQ
     */
    SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge, int srqLimit);

    /**
     * {@code ibv_create_srq_ex} with {@code IBV_SRQT_TM}: a tag-matching SRQ whose completions go to {@code cq}.
     *
     * @param cq the CQ of every completion of the SRQ (receives of its QPs and list operations)
     * @param maxWr the capacity in ordinary (unexpected) receives
     * @param maxSge scatter entries per ordinary receive
     * @param maxNumTags tagged buffers the matching list holds, at most {@link TmCaps#maxNumTags()}
     * @param maxOps list operations per {@link TagMatchingSrq#postSrqOps} call, at most {@link TmCaps#maxOps()}
     * @return the new SRQ
     * @throws dev.ibex.cm.RdmaException ENOTSUP when the device has no tag matching ({@link DeviceContext#queryTmCaps}
     *     reports {@code max_num_tags} 0); EINVAL when a size exceeds the device's
     */
    default TagMatchingSrq createTagMatchingSrq(CompletionQueue cq, int maxWr, int maxSge, int maxNumTags, int maxOps) {
        throw new dev.ibex.cm.RdmaException("ibv_create_srq_ex", dev.ibex.cm.Errno.ENOTSUP, device().device().name()
                + " has no tag matching (tm_caps.max_num_tags is 0): match tags in software, or use soft-roce");
    }

    /**
     * {@code ibv_create_qp}: a QP in RESET that the caller transitions with {@link QueuePair#modify}.
     *
     * @param attr the QP's type, CQs, SRQ and capacities
     * @return the new QP
     */
    QueuePair createQueuePair(QpInitAttr attr);
}
