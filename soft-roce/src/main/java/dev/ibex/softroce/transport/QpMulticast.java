package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.QpType;
import java.util.ArrayList;
import java.util.List;

/**
 * The multicast groups a UD QP is attached to ({@code ibv_attach_mcast}, {@code ibv_detach_mcast}; rxe_mcast.c's
 * share of a QP): the device delivers a group's datagrams to every QP attached to it, and a closing QP leaves them
 * all.
 *
 * <p>Threading: any thread; every method holds the QP's modify lock, so attaching is serialised with modify and
 * close.
 */
final class QpMulticast {
    private final SoftQueuePair qp;
    private final SoftDevice device;
    private final QpType type;
    private final Object lock;
    /** The groups attached (under lock). */
    private final List<Integer> attached = new ArrayList<>(1);

    QpMulticast(SoftQueuePair qp, SoftDevice device, QpType type, Object modifyLock) {
        this.qp = qp;
        this.device = device;
        this.type = type;
        this.lock = modifyLock;
    }

    /** {@link SoftQueuePair#attachMulticast} once the QP was found open. */
    void attach(Gid gid) {
        int group = multicastGroup(gid, "ibv_attach_mcast");
        synchronized (lock) {
            device.attachMulticast(group, qp);
            if (!attached.contains(group)) {
                attached.add(group);
            }
        }
    }

    /** {@link SoftQueuePair#detachMulticast} once the QP was found open. */
    void detach(Gid gid) {
        int group = multicastGroup(gid, "ibv_detach_mcast");
        synchronized (lock) {
            if (!device.detachMulticast(group, qp)) {
                throw new RdmaException("ibv_detach_mcast", Errno.EINVAL, "the QP is not attached to " + gid);
            }
            attached.remove(Integer.valueOf(group));
        }
    }

    /** Leaves every group (the QP closes). */
    void detachAll() {
        synchronized (lock) {
            for (int group : attached) {
                device.detachMulticast(group, qp);
            }
            attached.clear();
        }
    }

    /** The IPv4 group of a RoCEv2 MGID ({@code ::ffff:G}); EINVAL otherwise or for a QP that is not UD. */
    private int multicastGroup(Gid gid, String verb) {
        if (type != QpType.UD) {
            throw new RdmaException(verb, Errno.EINVAL, "only UD QPs can be attached to multicast groups");
        }
        if (gid == null || !QpAttributes.isMulticast(gid)) {
            throw new RdmaException(verb, Errno.EINVAL, "the soft device's multicast GIDs are IPv4-mapped"
                    + " multicast addresses (::ffff:224.0.0.0/4), not " + gid);
        }
        return (gid.byteAt(12) & 0xFF) << 24 | (gid.byteAt(13) & 0xFF) << 16 | (gid.byteAt(14) & 0xFF) << 8
                | (gid.byteAt(15) & 0xFF);
    }
}
