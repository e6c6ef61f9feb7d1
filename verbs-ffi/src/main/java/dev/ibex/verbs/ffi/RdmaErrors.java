package dev.ibex.verbs.ffi;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;

/**
 * Turns a failed call into an {@link RdmaException} with a sentence the user can act on.
 *
 * <p>Return conventions differ between verbs and this class hides that: librdmacm returns -1 and sets
 * errno; many libibverbs calls ({@code ibv_modify_qp}, {@code ibv_destroy_*}, {@code ibv_query_device} …)
 * return the errno value itself; providers sometimes return {@code -errno}. {@link #errnoOf} accepts all
 * three.
 */
public final class RdmaErrors {
    /** The alternatives a user has when this machine has no usable RDMA device. */
    public static final String ALTERNATIVES = "use the soft-roce provider (-Dibex.provider=soft-roce) or load "
            + "rdma_rxe (rdma link add rxe0 type rxe netdev <dev>)";
    /** ibv_get_device_list returned NULL with ENOSYS. */
    public static final String NO_KERNEL_SUPPORT = "no RDMA device: the kernel has no RDMA support (ENOSYS); " + ALTERNATIVES;
    /** librdmacm found no RDMA CM device (ENODEV). */
    public static final String NO_CM_DEVICE = "no RDMA device: the RDMA connection manager found no device (ENODEV: "
            + "no /dev/infiniband/rdma_cm, rdma_ucm not loaded or no RDMA device); " + ALTERNATIVES;
    /** ibv_get_device_list returned an empty list. */
    public static final String ZERO_DEVICES = "no RDMA device: the kernel supports RDMA but no device exists; "
            + "create one (rdma link add rxe0 type rxe netdev <dev>) or use the soft-roce provider (-Dibex.provider=soft-roce)";

    private RdmaErrors() {
    }

    /**
     * The errno of a failed call, whatever convention it used: {@code rc > 0} is the errno itself,
     * {@code rc == -1} means "see errno" ({@code captured}), another negative value is {@code -errno}.
     */
    public static int errnoOf(int rc, int captured) {
        if (rc > 0) {
            return rc;
        }
        if (rc == -1) {
            return captured;
        }
        return -rc;
    }

    /** The exception for {@code verb} failing with {@code errno}. */
    public static RdmaException failure(String verb, int errno) {
        return new RdmaException(verb, errno, advice(verb, errno));
    }

    /** The error for a device list that is present but empty (the kernel supports RDMA, no device exists). */
    public static RdmaException zeroDevices() {
        return new RdmaException("ibv_get_device_list", Errno.ENODEV, ZERO_DEVICES);
    }

    /**
     * Throws unless {@code rc} is 0; for the data-path verbs that return an errno value directly
     * ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_post_srq_recv}, {@code ibv_req_notify_cq}).
     */
    public static void check(String verb, int rc) {
        if (rc != 0) {
            throw failure(verb, errnoOf(rc, 0));
        }
    }

    /** What a user can do about {@code verb} failing with {@code errno}; empty when there is nothing useful to say. */
    public static String advice(String verb, int errno) {
        boolean cm = verb.startsWith("rdma_");
        return switch (Errno.of(errno)) {
            case ENOSYS -> verb.equals("ibv_get_device_list")
                    ? NO_KERNEL_SUPPORT
                    : "not supported by this kernel or provider (ENOSYS)";
            case ENODEV -> cm ? NO_CM_DEVICE
                    : "the RDMA device is gone (removed or its driver unloaded); close everything on it and reopen";
            case EPERM, EACCES -> verb.startsWith("ibv_reg_mr")
                    ? "cannot pin the memory: raise the locked-memory limit (ulimit -l unlimited, or LimitMEMLOCK=infinity for a systemd service)"
                    : "permission denied: the user needs read/write access to /dev/infiniband/* (rdma group or root)";
            case ENOMEM -> verb.startsWith("ibv_reg_mr")
                    ? "cannot pin the memory: raise the locked-memory limit (ulimit -l unlimited, or LimitMEMLOCK=infinity for a systemd service)"
                    : verb.startsWith("ibv_post") ? "the work queue is full: wait for completions before posting more"
                    : "out of memory or device resources: reduce queue sizes or the number of objects (see ibv_query_device limits)";
            case EINVAL -> verb.equals("ibv_modify_qp")
                    ? "invalid QP attributes or attribute mask for this state transition"
                    : "invalid argument, or the object is in the wrong state for " + verb;
            case EBUSY -> "still in use: destroy the objects that depend on it first (QPs before CQs and PDs, "
                    + "MRs before the PD) and ack every event before destroying";
            case EADDRINUSE -> "the address and port are already in use (another listener?)";
            case EADDRNOTAVAIL -> "the address is not on a local RDMA-capable interface (check `rdma link` and the netdev's IP)";
            case ENETUNREACH, EHOSTUNREACH -> "no route to the destination through an RDMA device";
            case ETIMEDOUT -> "the peer did not answer in time";
            case ECONNREFUSED -> "the peer rejected the connection (no listener on that port?)";
            case ENOTSUP -> "the device or provider does not support this operation";
            case EAGAIN -> "would block: no event is ready on a non-blocking channel";
            default -> "";
        };
    }
}
