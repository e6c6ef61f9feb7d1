package dev.ibex.cm.spi;

/**
 * The subset of {@code struct ibv_device_attr} the framework uses.
 *
 * @param deviceCapFlags {@code device_cap_flags}; see {@link #supportsAutoPathMigration()}
 * @param atomicCap 0 none, 1 HCA, 2 global ({@code enum ibv_atomic_cap})
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
     */
    public boolean supportsAutoPathMigration() {
        return (deviceCapFlags & CAP_AUTO_PATH_MIG) != 0;
    }

    /** {@return whether the device has type 2 memory windows (bound to one QP by a work request): 2A or 2B} */
    public boolean supportsMemoryWindows() {
        return (deviceCapFlags & (CAP_MEM_WINDOW_TYPE_2A | CAP_MEM_WINDOW_TYPE_2B)) != 0;
    }

    public boolean supportsAtomics() {
        return atomicCap != 0;
    }
}
