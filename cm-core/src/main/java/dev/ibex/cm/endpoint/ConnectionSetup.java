package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;
import static dev.ibex.cm.endpoint.Connection.LOG;
import static dev.ibex.cm.endpoint.Connection.NONE;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.ConnectionTable.Action;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * A connection's way to ESTABLISHED: registration and its CM id, the loop's {@link ConnectGate} (active) or the
 * listener's {@link HalfOpen} bounds (passive), admission against the pool (never started or accepted without the
 * receives it needs), the QP with its send and receive queues, the credit offer and connection parameters, the
 * move of an accepted connection to its loop, and the established step (credits, rendezvous, paths, keepalive,
 * what arrived early). Loop-confined, except {@link #acceptRequest}, which checks its arguments and hands over to
 * the loop.
 */
final class ConnectionSetup {
    /** Send-queue slots beyond the application's: a keepalive probe and a credit update in flight. */
    private static final int INTERNAL_SLOTS = 2;
    /** Receives a connection with a window of its own posts before it is established. */
    private static final int HANDSHAKE_RECEIVES = 8;

    private final Connection c;
    /** The source counted in the listener's half-open bounds until established or gone; null otherwise. */
    private InetAddress halfOpenSource;
    /** Waiting in the loop's {@link ConnectGate}; then holding one of its slots until the attempt ends. */
    private boolean queued;
    private boolean gated;

    ConnectionSetup(Connection c) {
        this.c = c;
    }

    // ---- what connect and reject may carry (any thread, before the loop) ----

    /**
     * A copy of the private data a connect carries, within its bound: {@value CmId#MAX_CONNECT_PRIVATE_DATA_TCP}
     * bytes on an RC id, less the credit offer Ibex appends with shared receives.
     */
    static byte[] connectData(byte[] privateData, ConnectionOptions options) {
        byte[] data = privateData == null ? NONE : privateData.clone();
        int max = options.receiveMode() == ReceiveMode.SHARED ? CreditOffer.MAX_CONNECT_DATA
                : CmId.MAX_CONNECT_PRIVATE_DATA_TCP;
        if (data.length > max) {
            throw new IllegalArgumentException("connect carries at most " + max + " bytes of private data on an RC "
                    + "(RDMA_PS_TCP) id" + (max < CmId.MAX_CONNECT_PRIVATE_DATA_TCP ? " with shared receives (Ibex "
                    + "uses the last " + CreditOffer.SIZE + "; ReceiveMode.WINDOW leaves all "
                    + CmId.MAX_CONNECT_PRIVATE_DATA_TCP + ")" : "") + ", got " + data.length);
        }
        return data;
    }

    /** A connect's source address, when given, must be resolved and of the (resolved) remote's family. */
    static void checkSource(InetSocketAddress source, InetSocketAddress remote) {
        if (source != null && (source.isUnresolved() || (!remote.isUnresolved()
                && source.getAddress().getClass() != remote.getAddress().getClass()))) {
            throw new IllegalArgumentException("source " + source + " and remote " + remote
                    + " must be resolved addresses of the same family");
        }
    }

    /** A copy of the private data a reject carries, within {@value CmId#MAX_REJECT_PRIVATE_DATA} bytes. */
    static byte[] rejectData(byte[] data) {
        byte[] d = data == null ? NONE : data.clone();
        if (d.length > CmId.MAX_REJECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("reject carries at most " + CmId.MAX_REJECT_PRIVATE_DATA
                    + " bytes of private data, got " + d.length);
        }
        return d;
    }

    // ---- active side: the connect, the gate ----

    /** {@link Connection#connect}'s work on the loop: register, then wait at the gate (or fail an unresolved name). */
    void start() {
        if (!prepare()) {
            return;
        }
        if (c.remote.isUnresolved()) {
            // the name did not resolve when the address was made (resolving here could block the loop)
            c.fatal = new RdmaException("getaddrinfo", 0, "unknown host '" + c.remote.getHostString()
                    + "': the name does not resolve to an IP address");
            c.machine.input(Input.ADDR_ERROR, null);
        } else {
            c.machine.armTimer(c.options.connectTimeout()); // the deadline covers the wait at the gate too
            queued = true;
            ConnectGate.of(c.loop).enter(c);
        }
    }

    /** Registers with the loop and creates the id; on failure the connection is closed and told so. */
    boolean prepare() {
        try {
            c.handle = c.loop.register(c.events);
            c.id = c.loop.cmChannel().createId(PortSpace.TCP, c.events);
            return true;
        } catch (RuntimeException e) {
            c.state = CLOSED;
            c.teardown.release();
            c.teardown.notifyError(e);
            c.teardown.notifyClosed();
            return false;
        }
    }

    boolean stillWaiting() {
        return queued && c.state == IDLE;
    }

    void admitted() {
        queued = false;
        gated = true;
        c.machine.input(Input.START, null);
    }

    void leaveGate() {
        queued = false;
        if (gated) {
            gated = false;
            ConnectGate.of(c.loop).leave();
        }
    }

    /** The CONNECT action: admission, the QP, {@code rdma_connect} with this end's offer. */
    void connect() {
        String refusal = admit();
        if (refusal != null) {
            throw new dev.ibex.cm.buffer.PoolExhaustedException(refusal);
        }
        setUpQp();
        setAckTimeout();
        c.id.connect(connParam(c.shared ? offer().append(c.outData, CmId.MAX_CONNECT_PRIVATE_DATA_TCP) : c.outData,
                null));
    }

    // ---- passive side: the request, accept ----

    /** The new id of a CONNECT_REQUEST becomes this connection's, in REQUESTED, until accepted or rejected. */
    void requested(CmEvent e, Duration requestTimeout, InetAddress source) {
        halfOpenSource = source;
        c.id = e.id();
        c.id.context(c.events);
        c.state = REQUESTED;
        c.peerOffer = CreditOffer.of(e.privateData());
        c.peerData = CreditOffer.strip(e.privateData());
        c.peerParam = e.conn();
        c.handle = c.loop.register(c.events);
        c.machine.armTimer(requestTimeout);
    }

    void leaveHalfOpen() {
        InetAddress s = halfOpenSource;
        if (s != null) {
            halfOpenSource = null;
            c.listener.halfOpenBounds().exit(s);
        }
    }

    /** The application accepts (any thread): checks the private data, then goes on on the loop. */
    void acceptRequest(ConnectionHandler h, byte[] data, EventLoop target) {
        Objects.requireNonNull(h, "handler");
        byte[] d = data == null ? NONE : data.clone();
        int max = offersCredits() ? CreditOffer.MAX_ACCEPT_DATA : CmId.MAX_ACCEPT_PRIVATE_DATA;
        if (d.length > max) {
            throw new IllegalArgumentException("accept carries at most " + max + " bytes of private data"
                    + (max < CmId.MAX_ACCEPT_PRIVATE_DATA ? " to a peer with shared receives (Ibex uses the last "
                    + CreditOffer.SIZE + ")" : "") + ", got " + d.length);
        }
        c.loop.run(() -> {
            if (c.state != REQUESTED) {
                // the request ended before the application answered: tell the handler it was given
                ConnectionHandler late = h;
                c.safely(() -> late.onError(c, c.failure != null ? c.failure : new IllegalStateException(
                        "the connection request is " + c.state + ", it can no longer be accepted")));
                c.safely(() -> late.onClosed(c));
                return;
            }
            c.handler = h;
            c.outData = d;
            c.acceptLoop = target == null || target.isShuttingDown() ? c.loop : target;
            c.machine.input(Input.ACCEPT, null);
        });
    }

    /** The ACCEPT action: on the listener's loop, or after handing the id to the target loop. */
    void accept() {
        c.machine.cancelTimer();
        EventLoop target = c.acceptLoop;
        if (target == null || target == c.loop) {
            acceptHere();
            return;
        }
        // hand the id to the target loop: from now on its events are polled there
        EventLoop from = c.loop;
        from.unregister(c.handle, c.events);
        c.handle = -1;
        c.loop = target;
        try {
            c.id.migrate(target.cmChannel());
        } catch (RuntimeException e) {
            c.loop = from;
            c.handle = from.register(c.events);
            throw e;
        }
        target.execute(this::acceptHere);
    }

    private void acceptHere() {
        if (c.state != CONNECTING) {
            return; // failed while moving between loops
        }
        try {
            if (c.handle < 0) {
                c.handle = c.loop.register(c.events);
            }
            c.machine.armTimer(c.options.connectTimeout());
            String refusal = admit();
            if (refusal != null) {
                refuseForResources(refusal);
                return;
            }
            setUpQp();
            setAckTimeout();
            c.id.accept(connParam(c.credits != null ? offer().append(c.outData, CmId.MAX_ACCEPT_PRIVATE_DATA)
                    : c.outData, c.peerParam));
        } catch (RuntimeException e) {
            c.teardown.actionFailed(Action.ACCEPT, e);
        }
    }

    /**
     * Whether this (passive) connection will take shared receives with credits: it wants them, and the peer
     * offered credits (a peer that did not — a C program, an Ibex end with a window — gets a window).
     */
    boolean offersCredits() {
        return c.isPassive() && c.options.receiveMode() == ReceiveMode.SHARED && c.peerOffer != null;
    }

    // ---- admission ----

    /**
     * Whether the loop's pool can take this connection: a connection is never accepted (or started) without the
     * receives it needs — a window of its own needs its first receives, a shared one needs the pool not to be dry.
     * Returns why not, or {@code null}.
     */
    private String admit() {
        LoopDevice d = c.loop.device(c.id.device());
        boolean window = c.isPassive() ? !offersCredits() || d.sharedReceives() == null
                : c.options.receiveMode() == ReceiveMode.WINDOW || d.sharedReceives() == null;
        // and the pool's send reserve: receives never take it, so a connection admitted into it could not receive
        int needed = (window ? Math.min(c.options.receiveWindow(), HANDSHAKE_RECEIVES) : 1)
                + d.pool().receiveReserve();
        int headroom = d.pool().headroom();
        if (headroom >= needed) {
            return null;
        }
        return "no receive buffers: " + d.pool() + " has " + headroom + " of "
                + d.pool().options().maxBuffers() + " left, " + needed + " needed with the "
                + d.pool().receiveReserve() + " kept for sends (raise BufferPool.Options.maxBuffers, "
                + "or release what the application holds)";
    }

    /** Rejects an accepted request for want of buffers (REJ no resources, the reason in the private data). */
    private void refuseForResources(String refusal) {
        LOG.warn("{}: refusing a connection: {}", c, refusal);
        try {
            c.id.reject(dev.ibex.cm.RejectReason.NO_RESOURCES.encode(refusal), CmId.REJECT_NO_RESOURCES);
        } catch (RuntimeException ignored) {
            // the destroy tells the peer as well
        }
        c.state = CLOSED;
        c.teardown.release();
        RdmaConnectException x = new RdmaConnectException(RdmaConnectException.Reason.CONNECT_ERROR, 0, null,
                c.remote, false, refusal);
        c.failure = x;
        c.teardown.notifyError(x);
        c.teardown.notifyClosed();
    }

    // ---- the QP and what the ends exchange ----

    /** What this end offers in its private data: its credit grant and the largest message it reassembles. */
    private CreditOffer offer() {
        return CreditOffer.of(c.options.receiveWindow(), c.options.maxMessageSize(), speaksRendezvous(),
                c.options.creditsInMessages());
    }

    /** Whether credits ride in messages: both ends said so (see {@link Credits}). */
    private boolean ridesBothWays() {
        return c.options.creditsInMessages() && c.peerOffer.creditsRide();
    }

    /**
     * Whether this end offers the rendezvous: it is on, READs are allowed both ways and the connection has fragment
     * slots (for its binds, descriptors and READs).
     */
    private boolean speaksRendezvous() {
        ConnectionOptions o = c.options;
        return o.rendezvousThreshold() > 0 && o.initiatorDepth() > 0 && o.responderResources() > 0
                && c.device != null && fragmentSlots() > 0 && c.device.attributes().maxQpInitRdAtom() > 0;
    }

    /** {@link ConnectionOptions#localAckTimeout()}: before the CM moves the QP to RTS. */
    private void setAckTimeout() {
        if (c.options.localAckTimeout() >= 0) {
            c.id.setOption(dev.ibex.cm.spi.CmOption.ACK_TIMEOUT, c.options.localAckTimeout());
        }
    }

    private void setUpQp() {
        ConnectionOptions o = c.options;
        LoopDevice device = c.loop.device(c.id.device());
        c.device = device;
        boolean wantShared = c.isPassive() ? offersCredits() : o.receiveMode() == ReceiveMode.SHARED;
        SharedReceiveQueue srq = wantShared ? device.sharedReceives() : null;
        c.shared = srq != null;
        if (c.shared && c.isPassive()) {
            c.credits = new Credits(o.receiveWindow(), c.peerOffer.grant(), ridesBothWays());
        }
        // slots beyond the application's for the queue's own work requests (see SendQueue): LOCAL_INVs that end
        // exposures where windows exist, a keepalive probe and a credit update
        int reserve = (device.attributes().supportsMemoryWindows() ? Math.max(1, o.sendQueueDepth() / 16) : 0)
                + INTERNAL_SLOTS;
        int fragmentSlots = fragmentSlots();
        int depth = o.sendQueueDepth() + reserve + fragmentSlots;
        int window = srq != null ? 0 : o.receiveWindow();
        c.cqReserved = depth + window;
        if (c.loop.options().perConnectionCq()) {
            c.cq = device.createCq(c.cqReserved);
            c.ownCq = true;
        } else {
            c.cq = device.reserveCq(c.cqReserved);
        }
        int inline = o.maxInline();
        while (true) {
            try {
                c.qp = c.id.createQp(device.pd(), new QpInitAttr(c.cq, c.cq, srq, new QpCap(depth, window, 1, 1,
                        inline), QpType.RC, false, c.events));
                break;
            } catch (RdmaException ex) {
                if (inline == 0 || ex.errno() != Errno.EINVAL) {
                    throw ex;
                }
                inline = inline >= 16 ? inline / 2 : 0; // the device's inline limit is not queryable: probe down
            }
        }
        c.qp.context(c.events);
        if (srq != null) {
            device.bindQp(c.qp.qpNum(), c.events, o.receiveWindow());
        }
        c.sq = new SendQueue(c.loop, c.qp, c.handle, o.signalInterval(), reserve, fragmentSlots, c.events);
        if (srq == null) {
            c.rq = new ReceiveQueue(c.loop, c.qp, device.pool(), c.handle, window, 0);
            c.rq.limit(HANDSHAKE_RECEIVES); // the whole window once established: a forged request pins a few only
            c.rq.flush(); // receives must be posted before the peer may send
        }
    }

    /**
     * Send-queue slots for the fragments of messages of several buffers, beyond the application's: none where no
     * message is longer than a buffer (a window of its own, or a maximum of one buffer).
     */
    private int fragmentSlots() {
        boolean large = (c.isPassive() ? offersCredits() : c.options.receiveMode() == ReceiveMode.SHARED)
                && c.options.maxMessageSize() > c.device.pool().bufferSize();
        return large ? Math.max(4, Math.min(64, c.options.sendQueueDepth() / 2)) : 0;
    }

    private ConnParam connParam(byte[] data, ConnParam peer) {
        DeviceAttributes a = c.device.attributes();
        int responder = Math.min(c.options.responderResources(), a.maxQpRdAtom());
        int initiator = Math.min(c.options.initiatorDepth(), a.maxQpInitRdAtom());
        if (peer != null) {
            initiator = Math.min(initiator, peer.initiatorDepth());
        }
        return new ConnParam(data, responder, initiator, false, c.options.retryCount(), c.options.rnrRetryCount(),
                false, 0);
    }

    // ---- established ----

    /** The ESTABLISH_USER_QP action: CONNECT_RESPONSE on an id without a CM-driven QP. */
    void establishUserQp(CmEvent e) {
        c.qp.modify(c.id.initQpAttr(QpState.RTR));
        c.qp.modify(c.id.initQpAttr(QpState.RTS));
        c.id.establish();
        established(e);
    }

    /** The ESTABLISH action: what the peer answered, credits, rendezvous, paths, keepalive, then the handler. */
    void established(CmEvent e) {
        c.machine.cancelTimer();
        leaveHalfOpen();
        leaveGate();
        if (!c.isPassive() && e != null) {
            c.peerOffer = CreditOffer.of(e.privateData());
            c.peerData = CreditOffer.strip(e.privateData());
            c.peerParam = e.conn();
            if (c.shared && c.peerOffer != null) {
                c.credits = new Credits(c.options.receiveWindow(), c.peerOffer.grant(), ridesBothWays());
            } else if (c.shared) {
                LOG.debug("{}: the peer offers no credits: its sends are not bounded", c);
            }
        }
        c.paths.established(c.id.localAddress(), c.id.peerAddress());
        c.rendezvous.negotiate(c.send.peerReassembles() && c.peerOffer.rendezvous() && speaksRendezvous(),
                c.options.rendezvousThreshold());
        if (c.rq != null) {
            c.rq.open();
        }
        loadMinRnrTimer();
        c.keepalive.start();
        c.safely(() -> c.handler.onEstablished(c));
        c.receive.deliverEarly();
    }

    /**
     * The CM moves the QP to RTR with min_rnr_timer 0 (655 ms, as the kernel's cm.c does): a sender that met an
     * empty receive queue would stall that long after the receiver caught up. Receive credits follow demand here,
     * so load the configured delay (an optional RTS to RTS attribute); a device that refuses keeps the CM's value.
     */
    private void loadMinRnrTimer() {
        if (c.qp == null || c.options.minRnrTimer() < 0) {
            return;
        }
        try {
            c.qp.modify(new QpAttr().minRnrTimer(c.options.minRnrTimer()));
        } catch (RuntimeException e) {
            LOG.debug("{}: min_rnr_timer {} not loaded, the CM's value stays: {}", c, c.options.minRnrTimer(),
                    e.toString());
        }
    }
}
