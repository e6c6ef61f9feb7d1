package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.UdParam;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The multicast groups a CM id joined and has not left, each with whether the join was send-only. In loopback a
 * join attaches the id's QP (now, or when it is created later) unless send-only, and answers MULTICAST_JOIN with
 * the group's address handle — or MULTICAST_ERROR for a group the fabric fails; leaving or destroying the id
 * detaches it. Scripted ids only record the joins.
 */
final class MulticastJoins {
    private final FakeCmId id;
    private final Map<InetSocketAddress, Boolean> joins = new HashMap<>();

    MulticastJoins(FakeCmId id) {
        this.id = id;
    }

    void join(InetSocketAddress group, boolean sendOnly, Object ctx) {
        FakeFabric fabric = id.fabric;
        boolean fail;
        Gid gid;
        synchronized (fabric.lock) {
            id.check();
            id.calls.add("join " + group.getAddress().getHostAddress() + (sendOnly ? " sendonly" : ""));
            if (id.device == null) {
                throw new RdmaException("rdma_join_multicast", Errno.EINVAL, "bind or resolve the id first");
            }
            if (!group.getAddress().isMulticastAddress()) {
                throw new IllegalArgumentException(group + " is not a multicast address");
            }
            if (!id.loopback()) {
                joins.put(group, sendOnly);
                return;
            }
            fail = fabric.failingGroups.contains(group.getAddress());
            gid = Gid.of(group.getAddress());
            if (!fail) {
                joins.put(group, sendOnly);
                if (id.qp != null && !sendOnly) {
                    id.qp.attachMulticast(gid, 0);
                }
            }
        }
        if (fail) {
            id.emit(CmEventType.MULTICAST_ERROR, -Errno.ETIMEDOUT.number(), null, null, null, ctx);
        } else {
            id.emit(CmEventType.MULTICAST_JOIN, 0, null, null, new UdParam(null, AhAttr.roce(gid, 0, 1),
                    UdParam.MULTICAST_QPN, UdParam.RDMA_UDP_QKEY), ctx);
        }
    }

    void leave(InetSocketAddress group) {
        synchronized (id.fabric.lock) {
            id.check();
            id.calls.add("leave " + group.getAddress().getHostAddress());
            joins.remove(group);
            if (id.qp != null) {
                id.qp.detachMulticast(Gid.of(group.getAddress()), 0);
            }
        }
    }

    /** {@return how many groups are joined (lock held)} */
    int count() {
        return joins.size();
    }

    /** A QP was created on the id: it receives from every group joined not send-only (lock held). */
    void attach(FakeQp q) {
        for (var g : joins.entrySet()) {
            if (!g.getValue()) {
                q.attachMulticast(Gid.of(g.getKey().getAddress()), 0);
            }
        }
    }

    /** The id is destroyed: its QP leaves every group and the joins are forgotten (lock held). */
    void drop(FakeQp q) {
        if (q != null) {
            for (var g : joins.keySet()) {
                q.detachMulticast(Gid.of(g.getAddress()), 0);
            }
        }
        joins.clear();
    }
}
