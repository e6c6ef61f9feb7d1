package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import java.util.Arrays;

/**
 * A device's multicast attachments ({@code ibv_attach_mcast}): which UD QPs listen to which IPv4 group. The first
 * attachment to a group joins it on the device's first link, the last detachment leaves it. Lookups from the
 * receive path scan a small copy-on-write array and allocate nothing.
 */
final class MulticastGroups {
    /** One group and its QPs. */
    private record Group(int ip, SoftQueuePair[] members) {}

    private static final Group[] NONE = {};
    private static final SoftQueuePair[] NO_MEMBERS = {};

    private final Link link;
    private final int maxGroups;
    private final int maxAttachPerGroup;
    private volatile Group[] groups = NONE;

    MulticastGroups(Link link, int maxGroups, int maxAttachPerGroup) {
        this.link = link;
        this.maxGroups = maxGroups;
        this.maxAttachPerGroup = maxAttachPerGroup;
    }

    /** The QPs attached to {@code group}; empty when none. Lock-free. */
    SoftQueuePair[] members(int group) {
        for (Group g : groups) {
            if (g.ip() == group) {
                return g.members();
            }
        }
        return NO_MEMBERS;
    }

    synchronized void attach(int group, SoftQueuePair qp) {
        Group[] gs = groups;
        for (int i = 0; i < gs.length; i++) {
            if (gs[i].ip() == group) {
                SoftQueuePair[] m = gs[i].members();
                for (SoftQueuePair q : m) {
                    if (q == qp) {
                        return; // attaching twice is a no-op, as in verbs
                    }
                }
                if (m.length >= maxAttachPerGroup) {
                    throw new RdmaException("ibv_attach_mcast", Errno.ENOMEM,
                            "the group already has " + m.length + " QPs attached (max_mcast_qp_attach)");
                }
                SoftQueuePair[] nm = Arrays.copyOf(m, m.length + 1);
                nm[m.length] = qp;
                Group[] ng = gs.clone();
                ng[i] = new Group(group, nm);
                groups = ng;
                return;
            }
        }
        if (gs.length >= maxGroups) {
            throw new RdmaException("ibv_attach_mcast", Errno.ENOMEM, "the device has " + gs.length
                    + " multicast groups (max_mcast_grp)");
        }
        link.joinMulticast(group);
        Group[] ng = Arrays.copyOf(gs, gs.length + 1);
        ng[gs.length] = new Group(group, new SoftQueuePair[] {qp});
        groups = ng;
    }

    /** Detaches {@code qp}; returns whether it was attached. */
    synchronized boolean detach(int group, SoftQueuePair qp) {
        Group[] gs = groups;
        for (int i = 0; i < gs.length; i++) {
            if (gs[i].ip() != group) {
                continue;
            }
            SoftQueuePair[] m = gs[i].members();
            int k = Arrays.asList(m).indexOf(qp);
            if (k < 0) {
                return false;
            }
            if (m.length == 1) {
                Group[] ng = new Group[gs.length - 1];
                System.arraycopy(gs, 0, ng, 0, i);
                System.arraycopy(gs, i + 1, ng, i, gs.length - i - 1);
                groups = ng;
                link.leaveMulticast(group);
            } else {
                SoftQueuePair[] nm = new SoftQueuePair[m.length - 1];
                System.arraycopy(m, 0, nm, 0, k);
                System.arraycopy(m, k + 1, nm, k, m.length - k - 1);
                Group[] ng = gs.clone();
                ng[i] = new Group(group, nm);
                groups = ng;
            }
            return true;
        }
        return false;
    }
}
