package dev.ibex.cm.spi;

/**
 * The subset of {@code struct ibv_device_attr} the framework uses. The {@code max*} limits are per device, as the
 * device reports them.
 *
 * @param firmwareVersion {@code fw_ver}, the firmware version text
 * @param nodeGuid {@code node_guid}, host byte order
 * @param vendorId {@code vendor_id}, the IEEE vendor OUI
 * @param vendorPartId {@code vendor_part_id}
 * @param maxMrSize {@code max_mr_size}: the largest memory region in bytes
 * @param maxQp {@code max_qp}: queue pairs
 * @param maxQpWr {@code max_qp_wr}: outstanding work requests per queue
 * @param deviceCapFlags {@code device_cap_flags}; see {@link #supportsAutoPathMigration()}
 * @param maxSge {@code max_sge}: scatter/gather entries per work request
 * @param maxCq {@code max_cq}: completion queues
 * @param maxCqe {@code max_cqe}: entries per completion queue
 * @param maxMr {@code max_mr}: memory regions
 * @param maxPd {@code max_pd}: protection domains
 * @param maxQpRdAtom {@code max_qp_rd_atom}: RDMA READs/atomics a QP accepts outstanding as responder
 * @param maxQpInitRdAtom {@code max_qp_init_rd_atom}: RDMA READs/atomics a QP may have outstanding as initiator
 * @param atomicCap 0 none, 1 HCA, 2 global ({@code enum ibv_atomic_cap})
 * @param maxAh {@code max_ah}: address handles
 * @param maxSrq {@code max_srq}: shared receive queues
 * @param maxSrqWr {@code max_srq_wr}: outstanding receives per SRQ
 * @param maxSrqSge {@code max_srq_sge}: scatter/gather entries per SRQ receive
 * @param maxMcastGrp {@code max_mcast_grp}: multicast groups
 * @param maxMcastQpAttach {@code max_mcast_qp_attach}: QPs attached per multicast group
 * @param physPortCount {@code phys_port_cnt}: ports, numbered from 1
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        int vendorId,
        int vendorPartId,
        long maxMrSize,
        int maxQp,
        int maxQpWr,
        long deviceCapFlags,
        int maxSge,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int atomicCap,
        int maxAh,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int maxMcastGrp,
        int maxMcastQpAttach,
        int physPortCount) {

    /** {@code IBV_DEVICE_AUTO_PATH_MIG}. */
    public static final long CAP_AUTO_PATH_MIG = 1L << 4;
    /** {@code IBV_DEVICE_SRQ_RESIZE}. */
    public static final long CAP_SRQ_RESIZE = 1L << 13;
    /** {@code IBV_DEVICE_PORT_ACTIVE_EVENT}. */
    public static final long CAP_PORT_ACTIVE_EVENT = 1L << 10;
    /** {@code IBV_DEVICE_MEM_WINDOW}: type 1 memory windows. */
    public static final long CAP_MEM_WINDOW = 1L << 17;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2A}: type 2 windows bound to a QP. */
    public static final long CAP_MEM_WINDOW_TYPE_2A = 1L << 23;
    /** {@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}: type 2 windows bound to a QP and checked against its PD. */
    public static final long CAP_MEM_WINDOW_TYPE_2B = 1L << 24;

    /**
     * Whether the device claims automatic path migration (APM). Linux rxe claims it, but the kernel refuses
     * any alternate path on RoCE ({@code ibv_modify_qp} with {@code IBV_QP_ALT_PATH} fails with EINVAL), so
     * on ports whose link layer is Ethernet APM is unavailable whatever this flag says (cm-core checks both).
     *
     * @return whether {@link #CAP_AUTO_PATH_MIG} is set
     */
    public boolean supportsAutoPathMigration() {
        return (deviceCapFlags & CAP_AUTO_PATH_MIG) != 0;
    }

    /** {@return whether the device has type 2 memory windows (bound to one QP by a work request): 2A or 2B} */
    public boolean supportsMemoryWindows() {
        return (deviceCapFlags & (CAP_MEM_WINDOW_TYPE_2A | CAP_MEM_WINDOW_TYPE_2B)) != 0;
    }

    /** {@return whether the device executes atomics (compare-and-swap, fetch-and-add): {@code atomicCap} not 0} */
    public boolean supportsAtomics() {
        return atomicCap != 0;
    }
}
