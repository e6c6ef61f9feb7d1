package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;

/**
 * Send-queue operations the requester executes itself, without a packet (rxe {@code rxe_do_local_ops}): BIND_MW
 * binds a memory window, LOCAL_INV invalidates a type 2 window. A failure completes the WQE with
 * {@code MW_BIND_ERR} or {@code LOC_QP_OP_ERR} and moves the QP to ERR, as in rxe. The soft device has no
 * fast-registered regions, so LOCAL_INV of a region's key fails.
 *
 * <p>Runs only in the QP's send task; allocates nothing (a bind allocates its binding).
 */
final class LocalOps {
    private LocalOps() {}

    /** Executes {@code w}; returns its completion status code (0 on success). */
    static int execute(SoftQueuePair qp, SendWqe w) {
        if (w.opcode == WrOpcode.BIND_MW) {
            return w.mw.bind(qp, w.rkey, w.bindMr, w.bindAddr, w.bindLength, w.bindAccess);
        }
        SoftMemoryWindow mw = qp.device().memoryWindow(w.invalidateRkey);
        return mw != null && mw.invalidate(w.invalidateRkey, qp, false) ? 0 : WcStatus.LOC_QP_OP_ERR.code();
    }
}
