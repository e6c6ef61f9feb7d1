package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.MembershipTable.Action;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.UdParam;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Datagram}'s membership in a multicast group: JOINING until MULTICAST_JOIN (then the group's address
 * handle exists and the datagram's QP is attached, unless send-only), LEFT after leave, failure or the endpoint's
 * close. Leaving always happens before the datagram's id is destroyed. Driven by {@link MembershipTable}.
 */
public final class Membership {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final Datagram datagram;
    private final InetSocketAddress group;
    private final boolean sendOnly;
    private volatile MembershipState state = MembershipState.JOINING;
    private ScheduledTask timer;
    private UdPeer peer;

    Membership(Datagram datagram, InetSocketAddress group, boolean sendOnly) {
        this.datagram = datagram;
        this.group = group;
        this.sendOnly = sendOnly;
    }

    /** {@return where the membership is in its life: joining, joined or left} */
    public MembershipState state() {
        return state;
    }

    /** {@return the multicast group's address and port} */
    public InetSocketAddress group() {
        return group;
    }

    /** {@return whether the membership only sends (the QP is not attached, nothing is received)} */
    public boolean isSendOnly() {
        return sendOnly;
    }

    /** {@return the datagram endpoint that joined} */
    public Datagram datagram() {
        return datagram;
    }

    /** {@return the group as a send destination (QPN 0xFFFFFF, the group's Q_Key), once joined; else {@code null}} */
    public UdPeer peer() {
        return peer;
    }

    /**
     * Sends a datagram to the group (loop thread); see {@link Datagram#send}.
     *
     * @param buffer a held buffer of the endpoint's pool, consumed
     * @param offset where the payload starts in the buffer
     * @param length the payload's length in bytes
     * @param attachment the caller's value, handed back with {@code onComplete} or {@code onFailed}
     * @throws IllegalStateException when the membership is not joined
     */
    public void send(Buffer buffer, int offset, int length, long attachment) {
        if (state != MembershipState.JOINED) {
            throw new IllegalStateException("the membership of " + group + " is " + state + ", not JOINED");
        }
        datagram.send(peer, buffer, offset, length, attachment);
    }

    /** Leaves the group (cancels a join in progress). Any thread; idempotent. */
    public void leave() {
        datagram.loop().run(() -> input(Input.CLOSE, null));
    }

    void input(Input in, CmEvent e) {
        StateTable.Transition<MembershipState, Action> t = MembershipTable.TABLE.at(state, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a membership that is " + state);
        }
        if (t.action() == Action.NONE) {
            return;
        }
        state = t.next();
        try {
            switch (t.action()) {
                case JOIN -> {
                    timer = datagram.loop().schedule(() -> {
                        timer = null;
                        input(Input.TIMEOUT, null);
                    }, datagram.options().deadline().toNanos(), TimeUnit.NANOSECONDS);
                    datagram.cmId().joinMulticast(group, sendOnly, this);
                }
                case JOINED -> {
                    cancel();
                    UdParam ud = e.ud();
                    peer = new UdPeer(datagram, datagram.loopDevice().pd().createAddressHandle(ud.ahAttr()),
                            ud.qpNum(), ud.qkey(), group, null);
                    datagram.joined(this);
                }
                case FAIL -> {
                    release();
                    datagram.membershipFailed(this, Failures.of(in, e, group, true, null));
                }
                case LEAVE -> {
                    release();
                    datagram.left(this);
                }
                case NONE, REFUSE -> throw new AssertionError();
            }
        } catch (RuntimeException ex) {
            if (state != MembershipState.LEFT) {
                state = MembershipState.LEFT;
                release();
                datagram.membershipFailed(this, Failures.refused(RdmaConnectException.Reason.MULTICAST_ERROR, ex,
                        group, true));
            } else {
                LOG.warn("membership of {}: {}", group, ex.toString());
            }
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** Leaves (before the id goes), destroys the group's address handle. */
    private void release() {
        cancel();
        try {
            datagram.cmId().leaveMulticast(group);
        } catch (RuntimeException e) {
            LOG.debug("leaving {}: {}", group, e.toString());
        }
        if (peer != null) {
            peer.destroy();
        }
    }

    @Override
    public String toString() {
        return "Membership[" + group + (sendOnly ? " send-only " : " ") + state + "]";
    }
}
