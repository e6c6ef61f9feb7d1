package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QueuePair;
import java.net.InetAddress;
import java.util.function.Predicate;

/**
 * The CM's side of APM for one connected id (the kernel's {@code cm_migrate} after {@code ib_cm_notify(PATH_MIG)}):
 * CM messages of the connection are accepted from the QP's alternate path too — the peer may have migrated first,
 * its DREQ then comes from there — and when the QP migrates the IB CM's path follows it, so that DREQ, DREP and LAP
 * go over the path that works. Both read the QP's attributes, which hold the truth whoever loaded the alternate
 * (the CM, or the application through {@code ibv_modify_qp}).
 *
 * <p>Under the CM's lock.
 */
final class CmPathFollower implements Predicate<InetAddress> {
    private final QueuePair qp;
    private final DeviceContext device;
    private final CmEnvironment env;

    CmPathFollower(QueuePair qp, DeviceContext device, CmEnvironment env) {
        this.qp = qp;
        this.device = device;
        this.env = env;
    }

    /** Whether {@code source} is the remote address of the QP's alternate path. */
    @Override
    public boolean test(InetAddress source) {
        AhAttr alt;
        try {
            alt = qp.query(QpAttr.ALT_PATH).altAhAttr();
        } catch (RuntimeException closed) {
            return false;
        }
        return alt != null && alt.dgid() != null && alt.dgid().toInetAddress().equals(source);
    }

    /** The QP migrated: point {@code id}'s CM messages at the QP's new primary path. */
    void migrated(IbCmId id) {
        AhAttr now;
        try {
            now = qp.query(QpAttr.AV).ahAttr();
        } catch (RuntimeException closed) {
            return;
        }
        if (now == null || now.dgid() == null) {
            return;
        }
        InetAddress local = device.queryGid(now.portNum(), now.sgidIndex()).toInetAddress();
        CmDevice port = env.device(local);
        if (port != null) {
            id.followPath(port, now.dgid().toInetAddress());
        }
    }
}
