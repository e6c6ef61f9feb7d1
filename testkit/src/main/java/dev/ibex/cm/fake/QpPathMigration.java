package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;

/**
 * A QP's paths and automatic path migration: the primary and alternate address vectors and the migration state
 * (MIGRATED → REARM → ARMED → MIGRATED). ARMED needs both ends re-armed (the MigReq exchange, instant here);
 * migrating — asked for, or the primary path failing — makes the alternate the primary, raises PATH_MIG on this QP
 * and on its ARMED peer (as this QP's first packet on the alternate reaches it); a failure with nothing armed
 * raises PATH_MIG_ERR. Lock held.
 */
final class QpPathMigration {
    private final FakeQp qp;
    private AhAttr primary;
    private AhAttr alternate;
    private int altPort;
    private MigState mig = MigState.MIGRATED;

    QpPathMigration(FakeQp qp) {
        this.qp = qp;
    }

    MigState state() {
        return mig;
    }

    /** Applies the path attributes of an {@code ibv_modify_qp}: AV, ALT_PATH, PATH_MIG_STATE, in that order. */
    void modify(QpAttr a) {
        if (a.has(QpAttr.AV)) {
            primary = a.ahAttr();
        }
        if (a.has(QpAttr.ALT_PATH)) {
            alternate = a.altAhAttr();
            altPort = a.altPortNum();
        }
        if (a.has(QpAttr.PATH_MIG_STATE)) {
            FakeQp peer = qp.peer;
            switch (a.pathMigState()) {
                case REARM -> {
                    if (alternate == null) {
                        throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "REARM without an alternate path");
                    }
                    if (mig == MigState.ARMED) {
                        throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "REARM while ARMED");
                    }
                    mig = MigState.REARM;
                    // ARMED only when the peer re-armed too (the MigReq = 0 exchange, instant in the fake)
                    if (peer != null && peer.paths.mig != MigState.MIGRATED) {
                        mig = MigState.ARMED;
                        peer.paths.mig = MigState.ARMED;
                    }
                }
                case MIGRATED -> {
                    if (mig == MigState.REARM) {
                        throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "can only migrate when ARMED");
                    }
                    if (mig == MigState.ARMED) {
                        migrateBoth();
                    }
                }
                case ARMED -> throw new RdmaException("ibv_modify_qp", Errno.EINVAL, "ARMED is not settable");
            }
        }
    }

    /** Adds the loaded paths to an {@code ibv_query_qp} answer. */
    void describe(QpAttr a) {
        if (primary != null) {
            a.ahAttr(primary);
        }
        if (alternate != null) {
            a.altPath(alternate, altPort, 14);
        }
    }

    /** The primary path fails: an ARMED QP migrates, otherwise PATH_MIG_ERR. */
    void primaryFailed() {
        if (mig == MigState.ARMED) {
            migrateBoth();
        } else {
            qp.raise(AsyncEventType.PATH_MIG_ERR);
        }
    }

    private void migrateBoth() {
        migrate();
        FakeQp peer = qp.peer;
        if (peer != null && peer.paths.mig == MigState.ARMED) {
            peer.paths.migrate(); // its first packet on the alternate
        }
    }

    private void migrate() {
        primary = alternate; // the alternate stays loaded, equal to the new primary, until another is loaded
        mig = MigState.MIGRATED;
        qp.raise(AsyncEventType.PATH_MIG);
    }
}
