package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.ResourceTracker;
import java.net.InetSocketAddress;

/**
 * One {@code rdma_join_multicast} of an id: the group, its MGID ({@code ::ffff:G} on RoCEv2) and whether the id's
 * QP was attached when the application took the MULTICAST_JOIN event.
 */
final class McMembership implements ResourceTracker.Tracked {
    final SoftCmId owner;
    final InetSocketAddress group;
    final Gid mgid;
    final boolean sendOnly;
    final Object context;
    boolean attached;
    CmTimer.Cancellable pending;
    CmEvent queued;

    McMembership(SoftCmId owner, InetSocketAddress group, Gid mgid, boolean sendOnly, Object context) {
        this.owner = owner;
        this.group = group;
        this.mgid = mgid;
        this.sendOnly = sendOnly;
        this.context = context;
    }

    @Override
    public ResourceKind kind() {
        return ResourceKind.MULTICAST;
    }

    /** Leaves the group (the fabric closing leftovers). */
    @Override
    public void close() {
        owner.leave(this);
    }

    @Override
    public String toString() {
        return "McMembership[" + group + (sendOnly ? " send-only" : "") + (attached ? " attached" : "") + "]";
    }
}
