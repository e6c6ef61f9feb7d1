package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.BufferOwner;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionTable.Action;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable connection (RC QP on an {@code RDMA_PS_TCP} id), active ({@link #connect}) or accepted through a
 * {@link Listener}. Driven by {@link ConnectionTable}; every callback runs on {@link #loop()}.
 *
 * <p>Data path (on the loop thread only; allocates nothing): {@link #send}, {@link #write}, {@link #read} and
 * atomics take a {@link Buffer} of the connection's loop device ({@link #allocate()}), are batched during the loop
 * turn and posted at its end, and complete through {@link ConnectionHandler#onComplete}/{@code onFailed} with the
 * caller's {@code attachment}. SEND and WRITE consume their buffer (it returns to the pool when the operation
 * completes); READ and atomics fill theirs and hand it back with the completion. At most
 * {@link #writableSlots()} operations fit; beyond that an operation is refused.
 *
 * <p>Receiving: the connection keeps its receive window posted; a message belongs to the application until it
 * releases the buffer, and only then is a receive re-posted.
 *
 * <p>{@link #close()} (any thread, any state) disconnects, lets posted work flush (each outstanding operation
 * fails with a flush {@link WorkCompletionException}), then destroys QP, CQ and id. Once closed, operations throw
 * {@link IllegalStateException}.
 */
public final class Connection implements LoopEndpoint, BufferOwner, SendQueue.Owner {
    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    private static final StateTable<ConnectionState, Action> TABLE = ConnectionTable.TABLE;
    private static final byte[] NONE = new byte[0];
    private static final ConnectionHandler NO_HANDLER = new ConnectionHandler() {};
    /** Send-queue slots beyond the application's: a keepalive probe and a credit update in flight. */
    private static final int INTERNAL_SLOTS = 2;
    /** Receives a connection with a window of its own posts before it is established. */
    private static final int HANDSHAKE_RECEIVES = 8;

    private volatile EventLoop loop;
    private final ConnectionOptions options;
    private final InetSocketAddress remote;
    private InetSocketAddress source;
    private final Listener listener;
    private volatile ConnectionState state = IDLE;
    private ConnectionHandler handler;
    private CmId id;
    private int handle = -1;
    private LoopDevice device;
    private QueuePair qp;
    private CompletionQueue cq;
    private boolean ownCq;
    private int cqReserved;
    private SendQueue sq;
    private ReceiveQueue rq;
    private ScheduledTask timer;
    private byte[] outData = NONE;
    private byte[] peerData = NONE;
    /** The peer's credit offer (the passive side learns it from the request, the active side from the reply). */
    private CreditOffer peerOffer;
    /** Receives come from the loop device's SRQ (else from the connection's own window, {@link #rq}). */
    private boolean shared;
    /** Credit flow control, when both ends take shared receives; {@code null} otherwise. */
    private Credits credits;
    /** What {@link ConnectionHandler#onWritabilityChanged} said last (it tells changes of {@link #isWritable()}). */
    private boolean announcedWritable = true;
    /** SENDs waiting behind a message of several buffers (see {@link MessageFragments}). */
    private final SendBacklog backlog = new SendBacklog();
    private boolean pumping;
    /** The message of several buffers being received. */
    private final MessageFragments fragments = new MessageFragments();
    /** Owner of a received fragment that holds no credit (every fragment of a message but the last). */
    private final BufferOwner fragmentOwner = this::fragmentReleased;
    /** Messages from the shared receive queue the application holds. */
    private int sharedHeld;
    /** Closing on a shared receive queue: the CQ was polled after the disconnect (see checkDrainedAfterCqPass). */
    private boolean cqPassed;
    /** An owed credit update found the send queue full: retried as it drains. */
    private boolean updatePending;
    private ConnParam peerParam;
    private EventLoop acceptLoop;
    private Throwable fatal;
    private Throwable failure;
    private boolean closedNotified;
    private boolean errorNotified;
    private Keepalive keepalive;
    /** The source counted in the listener's half-open bounds until established or gone; null otherwise. */
    private java.net.InetAddress halfOpenSource;
    /** Waiting in the loop's {@link ConnectGate}; then holding one of its slots until the attempt ends. */
    private boolean queued;
    private boolean gated;
    private ArrayDeque<Object> early;
    private final AlternatePaths paths = new AlternatePaths(this);
    private final Exposures exposures = new Exposures(this);
    /** Large messages by rendezvous, when both ends offered it (see {@link Rendezvous}). */
    private final Rendezvous rendezvous = new Rendezvous(this);

    private Connection(EventLoop loop, ConnectionOptions options, InetSocketAddress remote, Listener listener,
            ConnectionHandler handler) {
        this.loop = loop;
        this.options = options;
        this.remote = remote;
        this.listener = listener;
        this.handler = handler == null ? NO_HANDLER : handler;
    }

    /**
     * Connects to {@code remote} on the group's next loop with default options and no private data; see
     * {@link #connect(EventLoop, InetSocketAddress, byte[], ConnectionOptions, ConnectionHandler)}. Any thread.
     *
     * @param group the loops to pick from (round-robin)
     * @param remote the peer's address and port
     * @param handler told of the outcome and everything after, on the connection's loop
     * @return the connection, connecting
     */
    public static Connection connect(EventLoopGroup group, InetSocketAddress remote, ConnectionHandler handler) {
        return connect(group.next(), remote, NONE, ConnectionOptions.DEFAULT, handler);
    }

    /**
     * Starts connecting to {@code remote} and returns at once; the outcome arrives as
     * {@link ConnectionHandler#onEstablished} or {@link ConnectionHandler#onError} (an
     * {@link RdmaConnectException}) on {@code loop}.
     *
     * @param loop the loop the connection lives on; any thread may call this
     * @param remote the peer's address and port
     * @param privateData sent with the connection request (at most {@value CmId#MAX_CONNECT_PRIVATE_DATA_TCP} bytes)
     * @param options queue sizes, receive mode, timeouts
     * @param handler told of the outcome and everything after, on {@code loop}
     * @return the connection, connecting
     * @throws IllegalArgumentException when the private data is too long
     */
    public static Connection connect(EventLoop loop, InetSocketAddress remote, byte[] privateData,
            ConnectionOptions options, ConnectionHandler handler) {
        return connect(loop, null, remote, privateData, options, handler);
    }

    /**
     * Like {@link #connect(EventLoop, InetSocketAddress, byte[], ConnectionOptions, ConnectionHandler)}, resolving
     * from {@code source} ({@code rdma_resolve_addr} with a source address, as {@code rping -I} or
     * {@code ucmatose -b}): the connection leaves through that address's device and the peer sees it as the
     * requester. An address no RDMA device owns fails the connect with an ADDR_ERROR {@link RdmaConnectException}
     * (EADDRNOTAVAIL or ENODEV, as the provider reports it).
     *
     * @param source the local address to connect from (port 0: any free one), or {@code null} to let the route
     *               to {@code remote} choose
     * <p>An unresolved {@code remote} (a host name that did not resolve) fails the connect with an ADDR_ERROR
     * "unknown host" through the handler; names are never resolved here (that could block the loop).
     *
     * @param remote the peer's address and port
     * @param loop the loop the connection lives on; any thread may call this
     * @param privateData sent with the connection request, or {@code null}
     * @param options queue sizes, receive mode, timeouts
     * @param handler told of the outcome and everything after, on {@code loop}
     * @return the connection, connecting
     * @throws IllegalArgumentException when the private data is too long, the source is unresolved or the two
     *                                  addresses' families differ
     */
    public static Connection connect(EventLoop loop, InetSocketAddress source, InetSocketAddress remote,
            byte[] privateData, ConnectionOptions options, ConnectionHandler handler) {
        Objects.requireNonNull(loop, "loop");
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        byte[] data = privateData == null ? NONE : privateData.clone();
        int max = options.receiveMode() == ReceiveMode.SHARED ? CreditOffer.MAX_CONNECT_DATA
                : CmId.MAX_CONNECT_PRIVATE_DATA_TCP;
        if (data.length > max) {
            throw new IllegalArgumentException("connect carries at most " + max + " bytes of private data on an RC "
                    + "(RDMA_PS_TCP) id" + (max < CmId.MAX_CONNECT_PRIVATE_DATA_TCP ? " with shared receives (Ibex "
                    + "uses the last " + CreditOffer.SIZE + "; ReceiveMode.WINDOW leaves all "
                    + CmId.MAX_CONNECT_PRIVATE_DATA_TCP + ")" : "") + ", got " + data.length);
        }
        if (source != null && (source.isUnresolved() || (!remote.isUnresolved()
                && source.getAddress().getClass() != remote.getAddress().getClass()))) {
            throw new IllegalArgumentException("source " + source + " and remote " + remote
                    + " must be resolved addresses of the same family");
        }
        Connection c = new Connection(loop, options, remote, null, handler);
        c.source = source;
        c.outData = data;
        loop.run(() -> {
            if (!c.prepare()) {
                return;
            }
            if (remote.isUnresolved()) {
                // the name did not resolve when the address was made (resolving here could block the loop)
                c.fatal = new RdmaException("getaddrinfo", 0, "unknown host '" + remote.getHostString()
                        + "': the name does not resolve to an IP address");
                c.input(Input.ADDR_ERROR, null);
            } else {
                c.armTimer(options.connectTimeout()); // the deadline covers the wait at the gate too
                c.queued = true;
                ConnectGate.of(c.loop).enter(c);
            }
        });
        return c;
    }

    /** Whether the gate should still start this connect (it may have been closed or timed out meanwhile). */
    boolean stillWaiting() {
        return queued && state == IDLE;
    }

    /** The gate admitted this connect: start resolving. */
    void admitted() {
        queued = false;
        gated = true;
        input(Input.START, null);
    }

    private void leaveGate() {
        queued = false;
        if (gated) {
            gated = false;
            ConnectGate.of(loop).leave();
        }
    }

    /** An active connection in IDLE: registered, with its id, not started (loop thread; tests walk from here). */
    static Connection idle(EventLoop loop, InetSocketAddress remote, ConnectionOptions options, ConnectionHandler h) {
        Connection c = new Connection(loop, options, remote, null, h);
        c.prepare();
        return c;
    }

    private boolean prepare() {
        try {
            handle = loop.register(this);
            id = loop.cmChannel().createId(PortSpace.TCP, this);
            return true;
        } catch (RuntimeException e) {
            state = CLOSED;
            release();
            notifyError(e);
            notifyClosed();
            return false;
        }
    }

    /** Replaces the handler (tests observing a request before it is accepted). */
    void handler(ConnectionHandler h) {
        handler = h;
    }

    /** A connection request arriving at {@code l}: the new id's connection, in REQUESTED (listener's loop). */
    static Connection requested(Listener l, CmEvent e, ConnectionOptions options, Duration requestTimeout,
            java.net.InetAddress halfOpenSource) {
        Connection c = new Connection(l.loop(), options, e.id().peerAddress(), l, null);
        c.halfOpenSource = halfOpenSource;
        c.id = e.id();
        c.id.context(c);
        c.state = REQUESTED;
        c.peerOffer = CreditOffer.of(e.privateData());
        c.peerData = CreditOffer.strip(e.privateData());
        c.peerParam = e.conn();
        c.handle = c.loop.register(c);
        c.armTimer(requestTimeout);
        return c;
    }

    // ---- queries ----

    @Override
    public EventLoop loop() {
        return loop;
    }

    /** {@return where the connection is in its life (connecting, established, closing, closed, failed)} */
    public ConnectionState state() {
        return state;
    }

    /** {@return the options the connection was made with} */
    public ConnectionOptions options() {
        return options;
    }

    /** {@return whether this side accepted the connection (rather than initiated it)} */
    public boolean isPassive() {
        return listener != null;
    }

    /** {@return the private data the peer sent with its connect (passive side) or accept (active side); a copy} */
    public byte[] peerPrivateData() {
        return peerData.clone();
    }

    /** {@return the peer's connection parameters, or {@code null} before they are known} */
    public ConnParam peerParam() {
        return peerParam;
    }

    /** {@return the local address and port of the connection's CM id, or {@code null} before it is bound} */
    public InetSocketAddress localAddress() {
        CmId i = id;
        return i == null ? null : i.localAddress();
    }

    /** {@return the peer's address (the target of {@link #connect}, or the requester's)} */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public DeviceContext device() {
        LoopDevice d = device;
        return d == null ? (id == null ? null : id.device()) : d.context();
    }

    /** {@return the QP, or {@code null} before it exists and after teardown (for diagnostics)} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return the CM id (for diagnostics)} */
    public CmId cmId() {
        return id;
    }

    /** {@return whether another operation may be posted now (loop thread)} */
    public boolean isWritable() {
        return sq != null && state == ESTABLISHED && sq.isWritable() && (credits == null || credits.canSend())
                && sq.writableSlots() > backlog.messages();
    }

    /**
     * {@return how many operations may be posted now before the send queue (or the peer's credits) is full (loop
     * thread)}
     */
    public int writableSlots() {
        if (sq == null || state != ESTABLISHED) {
            return 0;
        }
        // messages waiting behind a message of several buffers each hold the slot their last part will take
        int slots = Math.max(0, sq.writableSlots() - backlog.messages());
        // operations that consume a receive at the peer also need a credit; counted for all, to keep it one number
        return credits == null ? slots : Math.min(slots, credits.sendCredits());
    }

    /**
     * The longest message this connection sends (loop thread, once established): the smaller of this end's and the
     * peer's {@link ConnectionOptions#maxMessageSize()} when the peer reassembles messages of several buffers, else
     * one pool buffer.
     *
     * @return the limit in bytes; 0 before the connection has a QP
     */
    public int maxMessageSize() {
        int peer = peerOffer == null || credits == null ? 0 : peerOffer.maxMessageSize();
        LoopDevice d = device;
        int buffer = d == null ? 0 : d.pool().bufferSize();
        return peer == 0 ? buffer : Math.max(Math.min(options.maxMessageSize(), peer), Math.min(buffer,
                options.maxMessageSize()));
    }

    /** Whether the peer reassembles messages of several buffers. */
    private boolean peerReassembles() {
        return credits != null && peerOffer != null && peerOffer.maxMessageSize() > 0;
    }

    /** {@return the messages the peer still lets this end send (credits), or -1 without credits (loop thread)} */
    public int sendCredits() {
        return credits == null ? -1 : credits.sendCredits();
    }

    /** {@return whether receives come from the loop's shared receive queue (loop thread)} */
    public boolean sharesReceives() {
        return shared;
    }

    /** {@return how many receives of the connection's own window are posted now, 0 on shared receives (loop thread)} */
    public int postedReceives() {
        return rq == null ? 0 : rq.posted();
    }

    /** Keepalive probes sent so far (loop thread; 0 without keepalive). */
    long keepaliveProbes() {
        Keepalive k = keepalive;
        return k == null ? 0 : k.probes();
    }

    /** {@return how many received messages the application holds and has not released (loop thread)} */
    public int heldMessages() {
        return rq == null ? sharedHeld : rq.held();
    }

    // ---- commands ----

    /** Starts closing (any thread, any state); {@link ConnectionHandler#onClosed} follows. Idempotent. */
    public void close() {
        try {
            loop.run(() -> input(Input.CLOSE, null));
        } catch (RejectedExecutionException terminated) {
            // the loop is gone and took the connection with it
        }
    }

    @Override
    public void abort() {
        if (state == CLOSED) {
            return;
        }
        ConnectionState from = state;
        state = CLOSED;
        release();
        if (ConnectionTable.ATTEMPTING.contains(from) || from == IDLE) {
            notifyError(Failures.of(Input.CLOSE, null, remote, false, null));
        }
        notifyClosed();
    }

    void accept(ConnectionHandler h, byte[] data, EventLoop target) {
        Objects.requireNonNull(h, "handler");
        byte[] d = data == null ? NONE : data.clone();
        int max = offersCredits() ? CreditOffer.MAX_ACCEPT_DATA : CmId.MAX_ACCEPT_PRIVATE_DATA;
        if (d.length > max) {
            throw new IllegalArgumentException("accept carries at most " + max + " bytes of private data"
                    + (max < CmId.MAX_ACCEPT_PRIVATE_DATA ? " to a peer with shared receives (Ibex uses the last "
                    + CreditOffer.SIZE + ")" : "") + ", got " + d.length);
        }
        loop.run(() -> {
            if (state != REQUESTED) {
                // the request ended before the application answered: tell the handler it was given
                ConnectionHandler late = h;
                safely(() -> late.onError(this, failure != null ? failure : new IllegalStateException(
                        "the connection request is " + state + ", it can no longer be accepted")));
                safely(() -> late.onClosed(this));
                return;
            }
            handler = h;
            outData = d;
            acceptLoop = target == null || target.isShuttingDown() ? loop : target;
            input(Input.ACCEPT, null);
        });
    }

    void reject(byte[] data) {
        byte[] d = data == null ? NONE : data.clone();
        if (d.length > CmId.MAX_REJECT_PRIVATE_DATA) {
            throw new IllegalArgumentException("reject carries at most " + CmId.MAX_REJECT_PRIVATE_DATA
                    + " bytes of private data, got " + d.length);
        }
        loop.run(() -> {
            if (state == REQUESTED) {
                outData = d;
                input(Input.REJECT, null);
            }
        });
    }

    // ---- the state machine ----

    /** Feeds one input through the table (loop thread). */
    void input(Input in, CmEvent e) {
        ConnectionState from = state;
        StateTable.Transition<ConnectionState, Action> t = TABLE.at(from, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a connection that is " + from);
        }
        if (t.action() == Action.NONE) {
            if (in.isCmEvent()) {
                LOG.debug("{}: {} ignored in {}", this, in, from);
            }
            return;
        }
        state = t.next();
        try {
            perform(t.action(), in, e, from);
        } catch (RuntimeException ex) {
            try {
                onActionFailed(t.action(), ex);
            } catch (Throwable again) {
                ex.addSuppressed(again);
                terminate(ex);
            }
        }
    }

    /**
     * The last resort when reporting a failure failed too (a bug, or a provider throwing where it should not): the
     * connection still ends with exactly one onError (if none came yet) and one onClosed.
     */
    private void terminate(Throwable cause) {
        state = CLOSED;
        try {
            release();
        } catch (Throwable t) {
            cause.addSuppressed(t);
        }
        // name the cause by its class only: its message may be what threw
        notifyError(new RdmaException("rdma_connection", 0, "the connection failed and could not release cleanly ("
                + cause.getClass().getName() + ", reported to the loop's uncaught handler)", cause));
        notifyClosed();
        try {
            loop.reportUncaught(cause);
        } catch (Throwable ignored) {
            // the terminal callbacks above are what matters
        }
    }

    private void perform(Action action, Input in, CmEvent e, ConnectionState from) {
        switch (action) {
            case RESOLVE_ADDR -> {
                if (timer == null) { // connect() armed it already, before the gate
                    armTimer(options.connectTimeout());
                }
                id.resolveAddr(source, remote, options.resolveTimeoutMs());
            }
            case RESOLVE_ROUTE -> id.resolveRoute(options.resolveTimeoutMs());
            case CONNECT -> {
                String refusal = admit();
                if (refusal != null) {
                    throw new dev.ibex.cm.buffer.PoolExhaustedException(refusal);
                }
                setUpQp();
                setAckTimeout();
                id.connect(connParam(shared ? offer().append(outData,
                        CmId.MAX_CONNECT_PRIVATE_DATA_TCP) : outData, null));
            }
            case ACCEPT -> accept();
            case REJECT -> {
                id.reject(outData);
                release();
                notifyClosed();
            }
            case ESTABLISH -> established(e);
            case ESTABLISH_USER_QP -> {
                qp.modify(id.initQpAttr(QpState.RTR));
                qp.modify(id.initQpAttr(QpState.RTS));
                id.establish();
                established(e);
            }
            case FAIL -> {
                if (from == REQUESTED && in != Input.REJECTED) {
                    // nobody answered: say so instead of leaving the peer to time out
                    rejectQuietly(in == Input.TIMEOUT ? dev.ibex.cm.RejectReason.NO_ANSWER.encode(null)
                            : in == Input.CLOSE ? dev.ibex.cm.RejectReason.CLOSING.encode(null) : NONE);
                }
                release();
                RdmaConnectException x = in == Input.TIMEOUT ? Failures.timeout(from, remote, options.connectTimeout())
                        : Failures.of(in, e, remote, false, fatal);
                failure = x;
                notifyError(x);
                notifyClosed();
            }
            case PEER_DISCONNECT -> {
                if (rendezvous.reading()) {
                    Throwable err = ConnectionFailedException.cm(remote,
                            ConnectionFailedException.Reason.MESSAGE_CUT_SHORT, "the peer disconnected while this end "
                            + "was reading a message from it by rendezvous", null);
                    failure = err;
                    notifyError(err);
                }
                stopReceives();
                disconnectQuietly();
                armTimer(options.drainTimeout());
                safely(() -> handler.onDisconnected(this));
                checkDrainedAfterCqPass();
            }
            case DISCONNECT -> {
                stopReceives();
                disconnectQuietly();
                armTimer(options.drainTimeout());
                checkDrainedAfterCqPass();
            }
            case BREAK -> {
                Throwable err = in != Input.FATAL ? ConnectionFailedException.cm(remote,
                        ConnectionFailedException.Reason.CM_ERROR, in + " on the established connection",
                        Failures.of(in, e, remote, false, null))
                        : ConnectionFailedException.of(remote, fatal != null ? fatal
                        : new RdmaException("ibv_get_async_event", 0, "fatal QP error"));
                failure = err;
                stopReceives();
                disconnectQuietly();
                armTimer(options.drainTimeout());
                notifyError(err);
                checkDrainedAfterCqPass();
            }
            case ABORT -> {
                release();
                Throwable err = ConnectionFailedException.cm(remote, ConnectionFailedException.Reason.DEVICE_REMOVAL,
                        "the RDMA device was removed", Failures.of(in, e, remote, false, null));
                failure = err;
                notifyError(err);
                notifyClosed();
            }
            case FINISH, FORCE -> {
                release();
                notifyClosed();
            }
            case ADDRESS_CHANGED -> safely(() -> handler.onAddressChange(this));
            case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
            case NONE, REFUSE -> throw new AssertionError(action);
        }
    }

    /** A provider call inside an action failed. */
    private void onActionFailed(Action action, RuntimeException ex) {
        ConnectionState s = state;
        if (s == CLOSED) { // e.g. rdma_reject refused: finish releasing anyway
            LOG.warn("{}: {} failed: {}", this, action, ex.toString());
            release();
            notifyClosed();
            return;
        }
        if (s == ESTABLISHED || s == DISCONNECTING) {
            fatal = ex;
            input(Input.FATAL, null);
            return;
        }
        RdmaConnectException.Reason reason = switch (action) {
            case RESOLVE_ADDR -> RdmaConnectException.Reason.ADDR_ERROR;
            case RESOLVE_ROUTE -> RdmaConnectException.Reason.ROUTE_ERROR;
            default -> RdmaConnectException.Reason.CONNECT_ERROR;
        };
        state = CLOSED;
        release();
        RdmaConnectException x = Failures.refused(reason, ex, remote, false);
        failure = x;
        notifyError(x);
        notifyClosed();
    }

    private void accept() {
        cancelTimer();
        EventLoop target = acceptLoop;
        if (target == null || target == loop) {
            acceptHere();
            return;
        }
        // hand the id to the target loop: from now on its events are polled there
        EventLoop from = loop;
        from.unregister(handle, this);
        handle = -1;
        loop = target;
        try {
            id.migrate(target.cmChannel());
        } catch (RuntimeException e) {
            loop = from;
            handle = from.register(this);
            throw e;
        }
        target.execute(this::acceptHere);
    }

    private void acceptHere() {
        if (state != CONNECTING) {
            return; // failed while moving between loops
        }
        try {
            if (handle < 0) {
                handle = loop.register(this);
            }
            armTimer(options.connectTimeout());
            String refusal = admit();
            if (refusal != null) {
                refuseForResources(refusal);
                return;
            }
            setUpQp();
            setAckTimeout();
            id.accept(connParam(credits != null ? offer().append(outData,
                    CmId.MAX_ACCEPT_PRIVATE_DATA) : outData, peerParam));
        } catch (RuntimeException e) {
            onActionFailed(Action.ACCEPT, e);
        }
    }

    /**
     * Whether the loop's pool can take this connection: a connection is never accepted (or started) without the
     * receives it needs — a window of its own needs its first receives, a shared one needs the pool not to be dry.
     * Returns why not, or {@code null}.
     */
    private String admit() {
        LoopDevice d = loop.device(id.device());
        boolean window = isPassive() ? !offersCredits() || d.sharedReceives() == null
                : options.receiveMode() == ReceiveMode.WINDOW || d.sharedReceives() == null;
        // and the pool's send reserve: receives never take it, so a connection admitted into it could not receive
        int needed = (window ? Math.min(options.receiveWindow(), HANDSHAKE_RECEIVES) : 1) + d.pool().receiveReserve();
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
        LOG.warn("{}: refusing a connection: {}", this, refusal);
        try {
            id.reject(dev.ibex.cm.RejectReason.NO_RESOURCES.encode(refusal), CmId.REJECT_NO_RESOURCES);
        } catch (RuntimeException ignored) {
            // the destroy tells the peer as well
        }
        state = CLOSED;
        release();
        RdmaConnectException x = new RdmaConnectException(RdmaConnectException.Reason.CONNECT_ERROR, 0, null, remote,
                false, refusal);
        failure = x;
        notifyError(x);
        notifyClosed();
    }

    /** What this end offers in its private data: its credit grant and the largest message it reassembles. */
    private CreditOffer offer() {
        return CreditOffer.of(options.receiveWindow(), options.maxMessageSize(), speaksRendezvous());
    }

    /**
     * Whether this end offers the rendezvous: it is on, READs are allowed both ways and the connection has fragment
     * slots (for its binds, descriptors and READs).
     */
    private boolean speaksRendezvous() {
        return options.rendezvousThreshold() > 0 && options.initiatorDepth() > 0 && options.responderResources() > 0
                && device != null && fragmentSlots() > 0 && device.attributes().maxQpInitRdAtom() > 0;
    }

    /** {@link ConnectionOptions#localAckTimeout()}: before the CM moves the QP to RTS. */
    private void setAckTimeout() {
        if (options.localAckTimeout() >= 0) {
            id.setOption(dev.ibex.cm.spi.CmOption.ACK_TIMEOUT, options.localAckTimeout());
        }
    }

    private void leaveHalfOpen() {
        java.net.InetAddress s = halfOpenSource;
        if (s != null) {
            halfOpenSource = null;
            listener.halfOpenBounds().exit(s);
        }
    }

    private void established(CmEvent e) {
        cancelTimer();
        leaveHalfOpen();
        leaveGate();
        if (!isPassive() && e != null) {
            peerOffer = CreditOffer.of(e.privateData());
            peerData = CreditOffer.strip(e.privateData());
            peerParam = e.conn();
            if (shared && peerOffer != null) {
                credits = new Credits(options.receiveWindow(), peerOffer.grant());
            } else if (shared) {
                LOG.debug("{}: the peer offers no credits: its sends are not bounded", this);
            }
        }
        paths.established(id.localAddress(), id.peerAddress());
        rendezvous.negotiate(peerReassembles() && peerOffer.rendezvous() && speaksRendezvous(),
                options.rendezvousThreshold());
        if (rq != null) {
            rq.open();
        }
        loadMinRnrTimer();
        if (options.keepalive()) {
            keepalive = new Keepalive(loop, new KeepaliveProbe(), options.keepaliveInterval(), options.keepaliveCount(),
                    remote);
            keepalive.start();
        }
        safely(() -> handler.onEstablished(this));
        ArrayDeque<Object> q = early;
        early = null;
        while (q != null && !q.isEmpty() && state == ESTABLISHED) {
            Object m = q.poll();
            if (m instanceof Buffer b) {
                deliver(b);
            } else {
                deliver((BufferList) m);
            }
        }
        if (q != null) {
            q.forEach(Connection::releaseMessage);
        }
    }

    /**
     * The CM moves the QP to RTR with min_rnr_timer 0 (655 ms, as the kernel's cm.c does): a sender that met an
     * empty receive queue would stall that long after the receiver caught up. Receive credits follow demand here,
     * so load the configured delay (an optional RTS to RTS attribute); a device that refuses keeps the CM's value.
     */
    private void loadMinRnrTimer() {
        if (qp == null || options.minRnrTimer() < 0) {
            return;
        }
        try {
            qp.modify(new QpAttr().minRnrTimer(options.minRnrTimer()));
        } catch (RuntimeException e) {
            LOG.debug("{}: min_rnr_timer {} not loaded, the CM's value stays: {}", this, options.minRnrTimer(),
                    e.toString());
        }
    }

    /**
     * Whether this (passive) connection will take shared receives with credits: it wants them, and the peer
     * offered credits (a peer that did not — a C program, an Ibex end with a window — gets a window).
     */
    private boolean offersCredits() {
        return isPassive() && options.receiveMode() == ReceiveMode.SHARED && peerOffer != null;
    }

    private void setUpQp() {
        device = loop.device(id.device());
        boolean wantShared = isPassive() ? offersCredits() : options.receiveMode() == ReceiveMode.SHARED;
        SharedReceiveQueue srq = wantShared ? device.sharedReceives() : null;
        shared = srq != null;
        if (shared && isPassive()) {
            credits = new Credits(options.receiveWindow(), peerOffer.grant());
        }
        // slots beyond the application's for the queue's own work requests (see SendQueue): LOCAL_INVs that end
        // exposures where windows exist, a keepalive probe and a credit update
        int reserve = (device.attributes().supportsMemoryWindows() ? Math.max(1, options.sendQueueDepth() / 16) : 0)
                + INTERNAL_SLOTS;
        int fragmentSlots = fragmentSlots();
        int depth = options.sendQueueDepth() + reserve + fragmentSlots;
        int window = srq != null ? 0 : options.receiveWindow();
        cqReserved = depth + window;
        if (loop.options().perConnectionCq()) {
            cq = device.createCq(cqReserved);
            ownCq = true;
        } else {
            cq = device.reserveCq(cqReserved);
        }
        int inline = options.maxInline();
        while (true) {
            try {
                qp = id.createQp(device.pd(), new QpInitAttr(cq, cq, srq, new QpCap(depth, window, 1, 1, inline),
                        QpType.RC, false, this));
                break;
            } catch (RdmaException ex) {
                if (inline == 0 || ex.errno() != Errno.EINVAL) {
                    throw ex;
                }
                inline = inline >= 16 ? inline / 2 : 0; // the device's inline limit is not queryable: probe down
            }
        }
        qp.context(this);
        if (srq != null) {
            device.bindQp(qp.qpNum(), this);
        }
        sq = new SendQueue(loop, qp, handle, options.signalInterval(), reserve, fragmentSlots, this);
        if (srq == null) {
            rq = new ReceiveQueue(loop, qp, device.pool(), handle, window, 0);
            rq.limit(HANDSHAKE_RECEIVES); // the whole window once established: a forged request pins a few only
            rq.flush(); // receives must be posted before the peer may send
        }
    }

    /**
     * Send-queue slots for the fragments of messages of several buffers, beyond the application's: none where no
     * message is longer than a buffer (a window of its own, or a maximum of one buffer).
     */
    private int fragmentSlots() {
        boolean large = (isPassive() ? offersCredits() : options.receiveMode() == ReceiveMode.SHARED)
                && options.maxMessageSize() > device.pool().bufferSize();
        return large ? Math.max(4, Math.min(64, options.sendQueueDepth() / 2)) : 0;
    }

    private ConnParam connParam(byte[] data, ConnParam peer) {
        DeviceAttributes a = device.attributes();
        int responder = Math.min(options.responderResources(), a.maxQpRdAtom());
        int initiator = Math.min(options.initiatorDepth(), a.maxQpInitRdAtom());
        if (peer != null) {
            initiator = Math.min(initiator, peer.initiatorDepth());
        }
        return new ConnParam(data, responder, initiator, false, options.retryCount(), options.rnrRetryCount(), false,
                0);
    }

    /** Releases everything in verbs order; the state is already CLOSED. */
    private void release() {
        cancelTimer();
        stopKeepalive();
        leaveHalfOpen();
        leaveGate();
        paths.close();
        if (qp != null) {
            if (device.srq() != null) {
                device.unbindQp(qp.qpNum());
            }
            quietly("destroying the QP", id::destroyQp); // first: nothing lands in our buffers any more
            qp = null;
        }
        if (sq != null) {
            sq.failAll();
        }
        rendezvous.failPosted();
        failBacklog();
        fragments.abandon();
        exposures.closeAll(); // the QP is gone: no window can be reached any more
        rendezvous.closeReceives();
        if (rq != null) {
            rq.reclaimAll();
        }
        if (early != null) {
            early.forEach(Connection::releaseMessage);
            early = null;
        }
        if (cq != null) {
            CompletionQueue c = cq;
            cq = null;
            if (ownCq) {
                quietly("destroying the CQ", () -> device.destroyCq(c));
            } else {
                device.unreserveCq(c, cqReserved);
            }
        }
        if (id != null) {
            quietly("destroying the CM id", id::close);
        }
        if (handle >= 0) {
            loop.unregister(handle, this);
            handle = -1;
        }
    }

    private void checkDrained() {
        if (state != DISCONNECTING) {
            return;
        }
        boolean sends = sq == null || sq.outstanding() == 0;
        // On an SRQ nothing of the QP's is posted: once the QP is in error (disconnect did that) and its sends are
        // flushed it is drained. QP_LAST_WQE_REACHED is not awaited: rxe never raises it, and where a device does,
        // a receive completed for the QP after it is gone finds no endpoint and goes back to the SRQ.
        boolean recvs = rq == null ? !shared || cqPassed : rq.posted() == 0;
        if (sends && recvs) {
            input(Input.DRAINED, null);
        }
    }

    /**
     * With a window of its own a closing connection is drained when its posted receives come back flushed, after
     * every receive completed before them. On a shared receive queue nothing of its own is posted: the receives it
     * completed before the disconnect may still sit in the CQ, so it counts as drained only after a pass over the
     * CQ (from a task, not inside the CM event that brought the disconnect).
     */
    private void checkDrainedAfterCqPass() {
        if (!shared || cq == null) {
            checkDrained();
            return;
        }
        CompletionQueue c = cq;
        try {
            loop.execute(() -> {
                if (state == DISCONNECTING) {
                    loop.pollCq(c);
                    cqPassed = true;
                    checkDrained();
                }
            });
        } catch (RejectedExecutionException terminated) {
            cqPassed = true; // the loop is gone: nothing is polled any more
            checkDrained();
        }
    }

    private void stopKeepalive() {
        if (keepalive != null) {
            keepalive.stop();
            keepalive = null;
        }
    }

    private void stopReceives() {
        stopKeepalive();
        if (rq != null) {
            rq.stop();
        }
    }

    private void disconnectQuietly() {
        quietly("rdma_disconnect", id::disconnect);
    }

    private void rejectQuietly(byte[] data) {
        quietly("rdma_reject", () -> id.reject(data));
    }

    private void armTimer(Duration d) {
        cancelTimer();
        ScheduledTask[] self = new ScheduledTask[1];
        self[0] = loop.schedule(() -> {
            if (timer == self[0]) {
                timer = null;
                input(Input.TIMEOUT, null);
            }
        }, d.toNanos(), TimeUnit.NANOSECONDS);
        timer = self[0];
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    // ---- loop dispatch ----

    @Override
    public void onCmEvent(CmEvent event) {
        input(Input.of(event.type()), event);
    }

    @Override
    public void onCompletion(CompletionBatch wc, int i, int kind, int slot) {
        if (keepalive != null && wc.statusCode(i) == 0) {
            keepalive.activity(); // (an error or a flush proves nothing of the peer)
        }
        if (kind == WrId.RECV || kind == WrId.SRQ_RECV) {
            received(wc, i, kind, slot);
        } else if (sq != null) {
            WcStatus status = wc.status(i);
            sq.complete(slot, kind, status, wc.vendorErr(i));
            if (status != WcStatus.SUCCESS && status != WcStatus.WR_FLUSH_ERR && state == ESTABLISHED) {
                // whatever failed (the owner of each kind may not have ended the connection: a credit update, a
                // probe), the QP is in error now and everything after it is flushed (IBA 10.8.3.3): nothing else
                // would ever report this connection's end
                fatal = new WorkCompletionException(null, status, wc.vendorErr(i));
                input(Input.FATAL, null);
            }
            if (updatePending) {
                sendCreditUpdate();
            }
            if (rendezvous.owesDones()) {
                rendezvous.retryDones();
            }
            if (!backlog.isEmpty()) {
                pump();
            }
            if (rendezvous.wantsSlots()) {
                rendezvous.pump();
            }
        }
        checkDrained();
    }

    private void received(CompletionBatch wc, int i, int kind, int slot) {
        Buffer b = device.pool().buffer(slot);
        boolean srq = kind == WrId.SRQ_RECV;
        if (!srq && (rq == null || rq.completed(slot) == null)) {
            return;
        }
        int status = wc.statusCode(i);
        if (status != 0) {
            recycle(b, srq);
            WcStatus s = WcStatus.ofCode(status);
            if (s != WcStatus.WR_FLUSH_ERR && state == ESTABLISHED) {
                fatal = new WorkCompletionException(null, s, wc.vendorErr(i));
                input(Input.FATAL, null);
            }
            return;
        }
        if (credits != null && Credits.isUpdate(wc.byteLen(i), (wc.flags(i) & WcFlags.WITH_IMM) != 0, wc.immData(i))) {
            recycle(b, srq);
            creditsReturned(Credits.count(wc.immData(i)));
            return;
        }
        if (rendezvous.isOn() && Rendezvous.isDone(wc.byteLen(i), (wc.flags(i) & WcFlags.WITH_IMM) != 0,
                wc.immData(i))) {
            recycle(b, srq);
            if (state == ESTABLISHED || state == DISCONNECTING) {
                rendezvous.done(wc.immData(i) & 0xFF_FFFF);
            }
            return;
        }
        if (wc.opcode(i) == WcOpcode.RECV_RDMA_WITH_IMM) {
            int imm = wc.immData(i);
            int len = wc.byteLen(i);
            recycle(b, srq);
            owe();
            if (state == ESTABLISHED || state == DISCONNECTING) {
                try {
                    handler.onRemoteWrite(this, imm, len);
                } catch (Throwable t) {
                    loop.reportUncaught(t);
                }
            }
            return;
        }
        if (srq && credits != null && (fragments.inProgress() || MessageFragments.isFirst(
                (wc.flags(i) & WcFlags.WITH_IMM) != 0, wc.immData(i), wc.byteLen(i)))) {
            fragment(b, wc, i);
            return;
        }
        boolean invalidated = (wc.flags(i) & WcFlags.WITH_INV) != 0;
        if (invalidated) {
            exposures.peerInvalidated(wc.invalidatedRkey(i)); // before the message: it may say "done with it"
        }
        // imm_data (big-endian on the wire) and invalidated_rkey (host order) share the field
        b.deliver(0, wc.byteLen(i), wc.flags(i), invalidated ? wc.invalidatedRkey(i) : wc.immData(i), wc.srcQp(i),
                this);
        if (!srq) {
            rq.handedOut();
        } else {
            sharedHeld++;
        }
        if (state == ESTABLISHED || state == DISCONNECTING) {
            // a successful receive in DISCONNECTING arrived before the disconnect (its completion was only polled
            // after the CM event in the same loop turn): it is the peer's data, deliver it
            deliver(b);
        } else if (state == CONNECTING) {
            // data can overtake the passive side's ESTABLISHED (the peer starts once it has its own)
            if (early == null) {
                early = new ArrayDeque<>();
            }
            early.add(b);
        } else {
            b.release();
        }
    }

    /** A receive that belongs to a message of several buffers (see {@link MessageFragments}). */
    private void fragment(Buffer b, CompletionBatch wc, int i) {
        int len = wc.byteLen(i);
        boolean withImm = (wc.flags(i) & WcFlags.WITH_IMM) != 0;
        if (!fragments.inProgress() && !fragments.start(wc.immData(i))) {
            recycle(b, true);
            protocolError("a first fragment announcing no others");
            return;
        }
        if (fragments.bytesWith(len) > options.maxMessageSize()) {
            recycle(b, true);
            fragments.abandon();
            protocolError("a message longer than this end's maxMessageSize (" + options.maxMessageSize() + " B)");
            return;
        }
        boolean last = fragments.nextIsLast();
        b.deliver(0, len, wc.flags(i), wc.immData(i), wc.srcQp(i), last ? this : fragmentOwner);
        sharedHeld++;
        BufferList m = fragments.add(b, len, last && withImm, wc.immData(i));
        if (m == null) {
            return; // (the sender spent no credit on it: the whole message holds one, its last part's)
        }
        if (state == ESTABLISHED || state == DISCONNECTING) {
            deliver(m);
        } else if (state == CONNECTING) {
            if (early == null) {
                early = new ArrayDeque<>();
            }
            early.add(m);
        } else {
            m.release();
        }
    }

    /** The peer broke the large-message protocol: the connection fails (its sender is not an Ibex end that obeys). */
    void protocolError(String what) {
        if (state == ESTABLISHED) {
            fatal = new RdmaException("ibv_poll_cq", Errno.EMSGSIZE, "the peer sent " + what + "; closing");
            input(Input.FATAL, null);
        }
    }

    private void deliver(BufferList m) {
        if (rendezvous.inbound(m)) {
            return; // a descriptor, or a message that waits behind one being read
        }
        deliverNow(m);
    }

    /** Hands a message to the application now (a rendezvous delivers in order through this). */
    void deliverNow(Object message) {
        if (message instanceof Buffer b) {
            try {
                handler.onMessage(this, b);
            } catch (Throwable t) {
                loop.reportUncaught(t);
            }
            return;
        }
        BufferList m = (BufferList) message;
        try {
            handler.onMessage(this, m);
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    static void releaseMessage(Object m) {
        if (m instanceof Buffer b) {
            b.release();
        } else {
            ((BufferList) m).release();
        }
    }

    /** A fragment of a received message other than its last was released (the message's credit is its last's). */
    private void fragmentReleased(Buffer buffer) {
        sharedHeld--;
        device.released(buffer);
    }

    private void deliver(Buffer b) {
        if (rendezvous.inbound(b)) {
            return;
        }
        deliverNow(b);
    }

    /**
     * A buffer a rendezvous READ filled becomes part of a received message: held by the application, and when
     * released back to the pool (it holds no credit: the descriptor's went back when it was read).
     */
    void adoptRead(Buffer b, int length) {
        b.deliver(0, length, 0, 0, qp == null ? 0 : qp.qpNum(), fragmentOwner);
        sharedHeld++;
    }

    private void recycle(Buffer b, boolean srq) {
        if (srq) {
            device.returnSrqBuffer(b);
        } else {
            b.reclaim();
            b.release();
            if (rq != null) {
                rq.recycled();
            }
        }
    }

    /** The application released a message. */
    @Override
    public void released(Buffer buffer) {
        if (shared) {
            sharedHeld--;
            device.released(buffer); // back to the pool: the SRQ refills
            owe();
        } else if (rq != null) {
            rq.released();
        }
    }

    // ---- credits ----

    /** A message this end granted was consumed: owe the peer a credit, and return a batch of them in time. */
    private void owe() {
        if (credits != null && credits.consumed() && state == ESTABLISHED) {
            sendCreditUpdate();
        }
    }

    private void sendCreditUpdate() {
        updatePending = false;
        int n = credits.takeOwed();
        if (n == 0 || state != ESTABLISHED) {
            credits.stillOwed(n);
            return;
        }
        if (!sq.creditUpdate(n)) {
            credits.stillOwed(n);
            updatePending = true; // the send queue is full: the next completion frees a slot
        }
    }

    private void creditsReturned(int n) {
        credits.returned(n);
        if (!backlog.isEmpty()) {
            pump();
        }
        updateWritability();
    }

    /** Tells the handler when {@link #isWritable()} changed. */
    private void updateWritability() {
        if (state != ESTABLISHED || sq == null || pumping) {
            return;
        }
        boolean w = isWritable();
        if (w != announcedWritable) {
            announcedWritable = w;
            safely(() -> handler.onWritabilityChanged(this, w));
        }
    }

    /** Before posting an operation that consumes a receive at the peer: it needs a credit. */
    private void checkCredit(Operation op) {
        if (credits != null && !credits.canSend()) {
            throw new IllegalStateException("no send credit: the peer has not consumed the " + credits.grant()
                    + " messages it granted; wait for onWritabilityChanged(true) or check isWritable() before " + op);
        }
    }

    private void spendCredit() {
        if (credits != null) {
            credits.spend();
            if (!credits.canSend()) {
                loop.countCreditStall();
            }
            updateWritability();
        }
    }

    @Override
    public void creditUpdateDone(int count, RdmaException error) {
        if (error != null && state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error; // the peer is gone or broke the protocol: no later work request reports it (all flush)
            input(Input.FATAL, null);
        }
    }

    @Override
    public void onAsyncEvent(AsyncEvent e) {
        AsyncEventType t = e.type();
        boolean mine = switch (t.element()) {
            case QP -> e.qp() != null && e.qp() == qp;
            case CQ -> e.cq() != null && e.cq() == cq;
            case SRQ -> device != null && e.srq() != null && e.srq() == device.srq();
            case PORT, DEVICE -> true;
        };
        if (!mine || state == CLOSED) {
            return;
        }
        switch (t) {
            case PATH_MIG -> paths.migrated();
            case PATH_MIG_ERR -> paths.migrationError();
            case COMM_EST -> {
                if (state == CONNECTING) {
                    quietly("rdma_notify", () -> id.notify(AsyncEventType.COMM_EST));
                }
            }
            case QP_LAST_WQE_REACHED -> {
                checkDrained();
            }
            case QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, CQ_ERR, SRQ_ERR, DEVICE_FATAL -> {
                fatal = ConnectionFailedException.fatalEvent(remote, t, device().device().name());
                input(Input.FATAL, null);
            }
            case SQ_DRAINED -> { }
            default -> safely(() -> handler.onDeviceEvent(this, e));
        }
    }

    // ---- data path ----

    /** {@return a buffer of this connection's pool (loop thread); throws when the pool is exhausted} */
    public Buffer allocate() {
        checkLoop();
        checkEstablished();
        return device.pool().acquire();
    }

    /** {@return a buffer of this connection's pool, or {@code null} when it is exhausted (loop thread)} */
    public Buffer tryAllocate() {
        return tryAllocate0();
    }

    /** {@return the registered buffer pool the connection's operations use, or {@code null} before its QP exists} */
    public dev.ibex.cm.buffer.BufferPool pool() {
        LoopDevice d = device;
        return d == null ? null : d.pool();
    }

    private Buffer tryAllocate0() {
        checkLoop();
        checkEstablished();
        return device.pool().tryAcquire();
    }

    /**
     * Sends {@code length} bytes from the start of {@code buffer}; see {@link #send(Buffer, int, int, long)}.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param length the message's length in bytes
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    public void send(Buffer buffer, int length, long attachment) {
        send(buffer, 0, length, attachment);
    }

    /**
     * Sends {@code buffer[offset, offset+length)} as one message. Consumes the buffer (released when the send
     * completes). Loop thread; allocates nothing.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    public void send(Buffer buffer, int offset, int length, long attachment) {
        checkOperation(buffer, offset, length);
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND, buffer, offset, length, 0, attachment);
            return;
        }
        checkCredit(Operation.SEND);
        int i = sq.begin(Operation.SEND, buffer, attachment);
        sq.commit(i, Operation.SEND, buffer, offset, length);
        spendCredit();
    }

    /**
     * Sends the buffers of {@code message}, in order, as one message of {@link BufferList#length()} bytes: the peer
     * receives it whole ({@link ConnectionHandler#onMessage(Connection, BufferList)}). Consumes the buffers (each
     * returns to the pool as its part completes) and leaves the list empty; one {@link ConnectionHandler#onComplete}
     * (or {@code onFailed}) with {@code attachment} reports the whole message. It takes one of
     * {@link #writableSlots()}: its buffers go out as send-queue slots and the peer's credits allow, and SENDs posted
     * after it wait behind it (meanwhile the connection is not writable). Loop thread; allocates nothing once the
     * backlog has grown to its size.
     *
     * @param message the buffers of the message, consumed; the list is left empty
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws MessageTooLargeException when the message is longer than {@link #maxMessageSize()}
     * @throws IllegalArgumentException for an empty list or a buffer of another pool
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    public void send(BufferList message, long attachment) {
        send(message, false, 0, attachment);
    }

    /**
     * {@link #send(BufferList, long)} with 32 bits of immediate data (delivered with the message).
     *
     * @param message the buffers of the message, consumed; the list is left empty
     * @param immData the immediate data, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    public void sendWithImm(BufferList message, int immData, long attachment) {
        send(message, true, immData, attachment);
    }

    private void send(BufferList message, boolean withImm, int imm, long attachment) {
        Objects.requireNonNull(message, "message");
        int n = message.count();
        if (n == 0) {
            throw new IllegalArgumentException("an empty BufferList is no message");
        }
        checkLoop();
        checkEstablished();
        for (int k = 0; k < n; k++) {
            if (message.buffer(k).pool() != device.pool()) {
                throw new IllegalArgumentException("buffer " + k + " belongs to " + message.buffer(k).pool()
                        + ", not to this connection's " + device.pool() + " (allocate with connection.allocate())");
            }
        }
        if (withImm && rendezvous.isOn() && imm >>> 24 == Rendezvous.DESCRIPTOR_TAG) {
            throw new IllegalArgumentException("with the rendezvous, immediate data 0xC7xxxxxx is Ibex's (a "
                    + "descriptor); use another immediate value");
        }
        int max = maxMessageSize();
        if (message.length() > max || (n > 1 && !peerReassembles())) {
            throw new MessageTooLargeException(message.length(), max, !peerReassembles()
                    ? "the peer reassembles no message of several buffers (a C program, or an end in "
                    + "ReceiveMode.WINDOW): send one buffer per message" : "raise ConnectionOptions.withMaxMessageSize "
                    + "(the limit is the smaller of both ends', " + options.maxMessageSize() + " B here, "
                    + peerOffer.maxMessageSize() + " B at the peer)");
        }
        if (rendezvous.takes(message.length())) {
            sendByRendezvous(message, withImm, imm, attachment);
            return;
        }
        if (n == 1) {
            if (withImm) {
                sendWithImm(message.buffer(0), message.offset(0), message.length(0), imm, attachment);
            } else {
                send(message.buffer(0), message.offset(0), message.length(0), attachment);
            }
            message.clear();
            return;
        }
        checkCredit(withImm ? Operation.SEND_WITH_IMM : Operation.SEND);
        checkMessageSlot();
        for (int k = 0; k < n; k++) {
            try {
                message.buffer(k).lend(); // throws for a buffer that is not held, before anything is queued
            } catch (IllegalStateException e) {
                for (int j = 0; j < k; j++) {
                    message.buffer(j).reclaim();
                }
                throw e;
            }
        }
        for (int k = 0; k < n; k++) {
            byte role = k == 0 ? SendBacklog.FIRST : k == n - 1 ? SendBacklog.LAST : SendBacklog.MIDDLE;
            Operation op = k == 0 || (k == n - 1 && withImm) ? Operation.SEND_WITH_IMM : Operation.SEND;
            int immK = k == 0 ? MessageFragments.firstImm(n) : imm;
            backlog.add(role, op, message.buffer(k), message.offset(k), message.length(k), immK,
                    k == n - 1 ? attachment : 0);
        }
        message.clear();
        spendCredit(); // the whole message takes one credit: the peer returns none for its other parts
        pump();
    }

    /**
     * A message of at least {@link ConnectionOptions#rendezvousThreshold()} bytes to a peer that speaks the
     * rendezvous: one backlog entry, whose turn exposes the buffers and sends the descriptor (see {@link Rendezvous});
     * it completes when the peer has read it.
     */
    private void sendByRendezvous(BufferList message, boolean withImm, int imm, long attachment) {
        if (withImm && MessageFragments.isReserved(imm)) {
            throw new IllegalArgumentException("with the rendezvous, immediate data 0xC6xxxxxx and 0xC7xxxxxx is "
                    + "Ibex's (fragments, rendezvous); use another immediate value");
        }
        checkCredit(withImm ? Operation.SEND_WITH_IMM : Operation.SEND);
        checkMessageSlot();
        int n = message.count();
        for (int k = 0; k < n; k++) {
            try {
                message.buffer(k).lend(); // throws for a buffer not held, or listed twice, before anything is taken
            } catch (IllegalStateException e) {
                for (int j = 0; j < k; j++) {
                    message.buffer(j).reclaim();
                }
                throw e;
            }
        }
        for (int k = 0; k < n; k++) {
            message.buffer(k).reclaim(); // (held again: the peer reads it through a window)
        }
        rendezvous.send(message, withImm, imm, attachment);
        message.clear();
        backlog.add(SendBacklog.RENDEZVOUS, withImm ? Operation.SEND_WITH_IMM : Operation.SEND, null, 0, 0, 0,
                attachment);
        spendCredit(); // the descriptor takes the message's one credit
        pump();
    }

    /** A rendezvous got the buffers it waited for: post what waits (loop thread). */
    void pumpBacklog() {
        if (state == ESTABLISHED && !backlog.isEmpty()) {
            pump();
        }
    }

    /** The send queue has a slot for one more message (whose last part will take it). */
    private void checkMessageSlot() {
        if (sq.writableSlots() - backlog.messages() <= 0) {
            throw new IllegalStateException("the send queue is full (" + sq.capacity() + " operations outstanding"
                    + (backlog.isEmpty() ? "" : ", " + backlog.messages() + " messages waiting behind a message of "
                    + "several buffers") + "): wait for onWritabilityChanged(true) or check writableSlots()");
        }
    }

    /** A SEND of one buffer that must wait behind a message of several buffers still going out. */
    private void enqueue(Operation op, Buffer buffer, int offset, int length, int imm, long attachment) {
        checkCredit(op);
        checkMessageSlot();
        buffer.lend();
        backlog.add(SendBacklog.SINGLE, op, buffer, offset, length, imm, attachment);
        spendCredit();
    }

    /** Posts from the backlog while slots and credits allow (loop thread). */
    private void pump() {
        if (pumping) {
            return;
        }
        pumping = true;
        try {
            while (!backlog.isEmpty() && state == ESTABLISHED) {
                byte role = backlog.role();
                if (role == SendBacklog.RENDEZVOUS) {
                    if (!rendezvous.advance()) {
                        break; // binds and descriptor parts wait for fragment slots
                    }
                    backlog.poll();
                    continue;
                }
                boolean internal = role == SendBacklog.FIRST || role == SendBacklog.MIDDLE;
                if (internal ? !sq.fragmentSlotFree() : sq.writableSlots() == 0) {
                    break; // (a message's own slot is always there: it was counted when the message was accepted)
                }
                Operation op = backlog.op();
                Buffer b = backlog.buffer();
                int offset = backlog.offset();
                int length = backlog.length();
                int imm = backlog.imm();
                long attachment = backlog.attachment();
                backlog.poll();
                int i = sq.begin(op, b, attachment, true, internal);
                if (op == Operation.SEND_WITH_IMM) {
                    sq.batch().immData(i, imm);
                } else if (op == Operation.SEND_WITH_INV) {
                    sq.batch().invalidateRkey(i, imm);
                }
                sq.commit(i, op, b, offset, length); // (its credit was spent when it was accepted)
            }
        } finally {
            pumping = false;
        }
        updateWritability();
    }

    /** Teardown: SENDs that never left fail as flushed, in order, and their buffers go back. */
    private void failBacklog() {
        while (!backlog.isEmpty()) {
            byte role = backlog.role();
            Operation op = backlog.op();
            Buffer b = backlog.buffer();
            long attachment = backlog.attachment();
            backlog.poll();
            if (role == SendBacklog.RENDEZVOUS) {
                rendezvous.failNext(); // its buffers go back, and it fails as flushed, in its place
                continue;
            }
            b.reclaim();
            b.release();
            if (role == SendBacklog.SINGLE || role == SendBacklog.LAST) {
                RdmaException flushed = new WorkCompletionException(op, WcStatus.WR_FLUSH_ERR, 0);
                try {
                    handler.onFailed(this, op, attachment, flushed);
                } catch (Throwable t) {
                    loop.reportUncaught(t);
                }
            }
        }
    }

    /**
     * Sends {@code buffer[offset, offset+length)} with 32 bits of immediate data (delivered with the message).
     * Consumes the buffer. Some zero-length or reserved immediate values are Ibex's own control messages on
     * connections with credits, rendezvous or large messages, and are refused. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param immData the immediate data, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the message would read as one of Ibex's control messages
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    public void sendWithImm(Buffer buffer, int offset, int length, int immData, long attachment) {
        checkOperation(buffer, offset, length);
        if (credits != null && Credits.isUpdate(length, true, immData)) {
            throw new IllegalArgumentException("with credits, a zero-length message with immediate data 0xC5xxxxxx "
                    + "is Ibex's credit update; give it a byte or another immediate value");
        }
        if (rendezvous.isOn() && Rendezvous.isDone(length, true, immData)) {
            throw new IllegalArgumentException("with the rendezvous, a zero-length message with immediate data "
                    + "0xC8xxxxxx is Ibex's \"done\"; give it a byte or another immediate value");
        }
        if (peerReassembles() && MessageFragments.isReserved(immData)) {
            throw new IllegalArgumentException("with large messages, immediate data 0xC6xxxxxx and 0xC7xxxxxx on a "
                    + "message of one buffer is Ibex's (fragments, rendezvous); use another immediate value");
        }
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND_WITH_IMM, buffer, offset, length, immData, attachment);
            return;
        }
        checkCredit(Operation.SEND_WITH_IMM);
        int i = sq.begin(Operation.SEND_WITH_IMM, buffer, attachment);
        sq.batch().immData(i, immData);
        sq.commit(i, Operation.SEND_WITH_IMM, buffer, offset, length);
        spendCredit();
    }

    /**
     * RDMA WRITE of {@code buffer[offset, offset+length)} to {@code target} at {@code targetOffset}; consumes it.
     * The peer is not told. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the data starts in the buffer
     * @param length how many bytes to write
     * @param target memory the peer exposed with write rights
     * @param targetOffset where to write, in bytes from the start of {@code target}
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code target} or the buffer
     */
    public void write(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset, long attachment) {
        checkOperation(buffer, offset, length);
        target.checkRange(targetOffset, length);
        int i = sq.begin(Operation.WRITE, buffer, attachment);
        sq.batch().rdma(i, target.address() + targetOffset, target.rkey());
        sq.commit(i, Operation.WRITE, buffer, offset, length);
    }

    /**
     * RDMA WRITE with immediate data: consumes a receive (and a credit) at the peer, which sees
     * {@code onRemoteWrite}. Consumes the buffer. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the data starts in the buffer
     * @param length how many bytes to write
     * @param target memory the peer exposed with write rights
     * @param targetOffset where to write, in bytes from the start of {@code target}
     * @param immData the immediate data the peer receives, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code target} or the buffer
     */
    public void writeWithImm(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset,
            int immData, long attachment) {
        checkOperation(buffer, offset, length);
        target.checkRange(targetOffset, length);
        checkCredit(Operation.WRITE_WITH_IMM);
        int i = sq.begin(Operation.WRITE_WITH_IMM, buffer, attachment);
        sq.batch().rdma(i, target.address() + targetOffset, target.rkey()).immData(i, immData);
        sq.commit(i, Operation.WRITE_WITH_IMM, buffer, offset, length);
        spendCredit();
    }

    /**
     * RDMA READ of {@code length} bytes from {@code source} into {@code buffer[offset…]}, handed back on completion.
     * Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, lent until the read completes
     * @param offset where the data lands in the buffer
     * @param length how many bytes to read
     * @param source memory the peer exposed with read rights
     * @param sourceOffset where to read, in bytes from the start of {@code source}
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code source} or the buffer
     */
    public void read(Buffer buffer, int offset, int length, RemoteBuffer source, long sourceOffset, long attachment) {
        checkOperation(buffer, offset, length);
        checkReadDepth();
        source.checkRange(sourceOffset, length);
        int i = sq.begin(Operation.READ, buffer, attachment);
        sq.batch().rdma(i, source.address() + sourceOffset, source.rkey());
        sq.commit(i, Operation.READ, buffer, offset, length);
    }

    /**
     * Atomic compare-and-swap of the 8 aligned bytes at {@code target + targetOffset}; the previous value lands in
     * {@code result[offset, offset+8)} (native byte order). Loop thread.
     *
     * @param result a held buffer of this connection's pool, lent until the operation completes
     * @param offset where the previous value lands in {@code result}
     * @param target memory the peer exposed with atomic rights
     * @param targetOffset where the 8 bytes are, in bytes from the start of {@code target} (8-byte aligned address)
     * @param expected the value compared with the remote one
     * @param desired the value written when they are equal
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    public void compareAndSwap(Buffer result, int offset, RemoteBuffer target, long targetOffset, long expected,
            long desired, long attachment) {
        checkAtomic(result, offset, target, targetOffset);
        int i = sq.begin(Operation.COMPARE_AND_SWAP, result, attachment);
        sq.batch().atomic(i, target.address() + targetOffset, expected, desired, target.rkey());
        sq.commit(i, Operation.COMPARE_AND_SWAP, result, offset, 8);
    }

    /**
     * Atomic fetch-and-add; the previous value lands in {@code result[offset, offset+8)}. Loop thread.
     *
     * @param result a held buffer of this connection's pool, lent until the operation completes
     * @param offset where the previous value lands in {@code result}
     * @param target memory the peer exposed with atomic rights
     * @param targetOffset where the 8 bytes are, in bytes from the start of {@code target} (8-byte aligned address)
     * @param delta what to add to the remote value
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    public void fetchAndAdd(Buffer result, int offset, RemoteBuffer target, long targetOffset, long delta,
            long attachment) {
        checkAtomic(result, offset, target, targetOffset);
        int i = sq.begin(Operation.FETCH_AND_ADD, result, attachment);
        sq.batch().atomic(i, target.address() + targetOffset, delta, 0, target.rkey());
        sq.commit(i, Operation.FETCH_AND_ADD, result, offset, 8);
    }

    /**
     * SEND that also invalidates {@code rkey}, a memory window the peer exposed to this side: the exposure ends at the
     * peer as the message arrives (the peer sees {@link Buffer#hasInvalidatedRkey()}). Consumes the buffer.
     * Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param rkey the rkey of the peer's exposure to end
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    public void sendWithInvalidate(Buffer buffer, int offset, int length, int rkey, long attachment) {
        checkOperation(buffer, offset, length);
        if (!backlog.isEmpty()) {
            enqueue(Operation.SEND_WITH_INV, buffer, offset, length, rkey, attachment);
            return;
        }
        checkCredit(Operation.SEND_WITH_INV);
        int i = sq.begin(Operation.SEND_WITH_INV, buffer, attachment);
        sq.batch().invalidateRkey(i, rkey);
        sq.commit(i, Operation.SEND_WITH_INV, buffer, offset, length);
        spendCredit();
    }

    /**
     * Lets the peer reach {@code buffer[offset, offset + length)} with {@code rights} over this connection, in the
     * best {@link Exposure.Mode} the device offers; see {@link #expose(Buffer, int, int, Set, Exposure.Mode, long)}.
     *
     * @param buffer a held buffer of this connection's pool
     * @param offset where the exposed range starts in the buffer
     * @param length the range's length in bytes, positive
     * @param rights what the peer may do there, at least one
     * @param attachment the caller's value, handed back with the bind's {@code onComplete} or {@code onFailed}
     * @return the exposure, usable once its bind completes
     */
    public Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, long attachment) {
        return expose(buffer, offset, length, rights, Exposure.Mode.AUTO, attachment);
    }

    /**
     * Lets the peer reach exactly {@code buffer[offset, offset + length)} with exactly {@code rights}, through this
     * connection only where the device has memory windows. The exposure is usable once
     * {@link ConnectionHandler#onComplete} reports {@link Operation#BIND_MW} with {@code attachment} (or
     * {@code onFailed}); then send {@link Exposure#remote()} to the peer. It ends when revoked, when the buffer is
     * released (which returns it to the pool only after the key is dead), when the peer invalidates it, or when the
     * connection closes: {@link ConnectionHandler#onExposureEnded}. Loop thread; the buffer must be held.
     *
     * @param buffer a held buffer of this connection's pool
     * @param offset where the exposed range starts in the buffer
     * @param length the range's length in bytes, positive
     * @param rights what the peer may do there, at least one
     * @param mode how the exposure is made: a memory window, a region of its own, or the best the device offers
     * @param attachment the caller's value, handed back with the bind's {@code onComplete} or {@code onFailed}
     * @return the exposure, usable once its bind completes
     * @throws IllegalArgumentException for an empty range, one outside the buffer, no rights, or a buffer of another
     *     pool
     * @throws RdmaException ENOTSUP when the device cannot do {@code mode} (or atomics, when asked)
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    public Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, Exposure.Mode mode,
            long attachment) {
        checkLoop();
        checkEstablished();
        Objects.requireNonNull(buffer, "buffer");
        if (buffer.pool() != device.pool()) {
            throw new IllegalArgumentException("the buffer belongs to " + buffer.pool() + ", not to this connection's "
                    + device.pool() + " (allocate with connection.allocate())");
        }
        return exposures.expose(buffer, offset, length, rights, mode, attachment);
    }

    /** {@return how many exposures have not ended (loop thread; for leak checks)} */
    public int liveExposures() {
        return exposures.live();
    }

    /** Posts what this turn batched now instead of at its end (loop thread). */
    public void flush() {
        checkLoop();
        if (sq != null) {
            sq.flush();
        }
    }

    private void checkLoop() {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("use the connection on its event loop (" + loop + "); from other threads "
                    + "hand the work over with connection.loop().execute(...)");
        }
    }

    private void checkEstablished() {
        if (state != ESTABLISHED) {
            throw new IllegalStateException("the connection is " + state + (state == CLOSED ? "" : ", not ESTABLISHED"));
        }
    }

    private void checkOperation(Buffer b, int offset, int length) {
        checkLoop();
        checkEstablished();
        if (b.pool() != device.pool()) {
            throw new IllegalArgumentException("the buffer belongs to " + b.pool() + ", not to this connection's "
                    + device.pool() + ": its key is not valid here (allocate with connection.allocate())");
        }
        if (offset < 0 || length < 0 || offset + length > b.capacity()) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") lies outside the "
                    + b.capacity() + "-byte buffer");
        }
    }

    private void checkReadDepth() {
        if (Math.min(options.initiatorDepth(), device.attributes().maxQpInitRdAtom()) == 0) {
            throw new IllegalStateException("RDMA READ and atomics need initiatorDepth > 0 (see ConnectionOptions)");
        }
    }

    private void checkAtomic(Buffer result, int offset, RemoteBuffer target, long targetOffset) {
        checkOperation(result, offset, 8);
        checkReadDepth();
        target.checkRange(targetOffset, 8);
        if (((target.address() + targetOffset) & 7) != 0) {
            throw new IllegalArgumentException("atomics need an 8-byte aligned remote address");
        }
        if (!device.attributes().supportsAtomics()) {
            throw new RdmaException("ibv_post_send", Errno.ENOTSUP, device.context().device().name()
                    + " does not support atomic operations (atomic_cap is NONE)");
        }
    }

    // ---- SendQueue.Owner ----

    @Override
    public void exposureStep(Operation op, Exposure e, RdmaException error) {
        exposures.completed(op, e, error);
        if (state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error; // a failed bind or invalidate leaves the QP in error, as any failed work request
            input(Input.FATAL, null);
        }
    }

    // ---- for Exposures ----

    SendQueue sendQueue() {
        return sq;
    }

    /** Whether the QP may still execute the peer's requests (so a window must be invalidated with LOCAL_INV). */
    boolean acceptsRequests() {
        return state == ESTABLISHED && qp != null;
    }

    void exposureBound(long attachment) {
        completed(Operation.BIND_MW, attachment);
    }

    void exposureFailed(long attachment, RdmaException error) {
        try {
            handler.onFailed(this, Operation.BIND_MW, attachment, error);
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    void exposureEnded(Exposure e) {
        if (e.internal) {
            rendezvous.exposureEnded(e);
            return;
        }
        try {
            handler.onExposureEnded(this, e);
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    @Override
    public void completed(Operation op, long attachment) {
        try {
            handler.onComplete(this, op, attachment);
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    @Override
    public void failed(Operation op, long attachment, RdmaException error) {
        try {
            handler.onFailed(this, op, attachment, error);
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
        if (state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error;
            input(Input.FATAL, null);
        }
    }

    @Override
    public void probeDone(RdmaException error) {
        if (keepalive != null) {
            keepalive.probeDone(error == null);
        }
        if (error != null && state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error;
            input(Input.FATAL, null);
        }
    }

    /** The keepalive's view of this connection (loop thread). */
    private final class KeepaliveProbe implements Keepalive.Probe {
        @Override
        public int outstanding() {
            return sq == null ? 0 : sq.outstanding();
        }

        @Override
        public boolean probe() {
            return state == ESTABLISHED && sq != null && sq.probe();
        }

        @Override
        public void expired(ConnectionFailedException error) {
            if (state == ESTABLISHED) {
                LOG.warn("{}: {}", Connection.this, error.getMessage());
                fatal = error;
                input(Input.FATAL, null);
            }
        }
    }

    @Override
    public void writabilityChanged(boolean writable) {
        updateWritability();
    }

    @Override
    public void fragmentDone(RdmaException error) {
        if (error != null && state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error; // the message's last fragment will be flushed: the application hears of it there
            input(Input.FATAL, null);
        }
    }

    @Override
    public void rendezvousReadDone(RdmaException error) {
        rendezvous.readDone(error);
        if (error != null && state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal = error; // the peer's keys failed (REM_ACCESS_ERR) or it is gone: the message cannot arrive
            input(Input.FATAL, null);
        }
    }

    Exposures exposures() {
        return exposures;
    }

    /** RDMA READs a rendezvous keeps outstanding at most: the connection's initiator depth. */
    int readDepth() {
        return Math.max(1, Math.min(options.initiatorDepth(), device.attributes().maxQpInitRdAtom()));
    }

    /** {@return how many messages are going out or coming in by rendezvous (loop thread; for tests and leak checks)} */
    public int rendezvousInFlight() {
        return rendezvous.inFlight();
    }

    /**
     * What the peer exposed for the last message this end read by rendezvous (loop thread; diagnostics): one
     * descriptor per buffer of the peer's. Once the message was read the peer revokes the keys, so they reach nothing.
     *
     * @return the descriptors; empty before the first rendezvous read
     */
    public java.util.List<RemoteBuffer> lastRendezvousSources() {
        return rendezvous.lastSources();
    }

    /**
     * {@return whether messages of at least {@link ConnectionOptions#rendezvousThreshold()} go by rendezvous (loop
     * thread)}
     */
    public boolean usesRendezvous() {
        return rendezvous.isOn();
    }

    @Override
    public void postFailed(RdmaException error) {
        if (state == ESTABLISHED) {
            fatal = error;
            input(Input.FATAL, null);
        }
    }

    // ---- APM ----

    /**
     * Loads an alternate path for automatic path migration: resolves a route from {@code localAlternate} to
     * {@code remoteAlternate} with a temporary CM id on this loop, loads it into the QP and re-arms it
     * ({@code IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE = REARM}): {@link PathEvent.Type#ALTERNATE_LOADED}. The QP
     * becomes ARMED — able to migrate — only when the peer has loaded the mirrored path and re-armed too and traffic
     * has shown it ({@link PathEvent.Type#ARMED}); later migrations arrive as {@link PathEvent.Type#MIGRATED}, all
     * through {@link ConnectionHandler#onPathEvent}. Any thread.
     *
     * @param localAlternate the local address of the alternate path (another port or device)
     * @param remoteAlternate the peer's address on the alternate path
     * @throws IllegalStateException when not established
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths, before the QP is touched
     */
    public void alternatePath(InetSocketAddress localAlternate, InetSocketAddress remoteAlternate) {
        Objects.requireNonNull(localAlternate, "localAlternate");
        Objects.requireNonNull(remoteAlternate, "remoteAlternate");
        checkEstablished();
        checkApm();
        loop.run(() -> {
            if (state == ESTABLISHED) {
                paths.load(localAlternate, remoteAlternate);
            }
        });
    }

    /**
     * Forces a migration to the loaded alternate path ({@code path_mig_state = MIGRATED}); any thread. Only an ARMED
     * QP migrates: otherwise {@link PathEvent.Type#MIGRATION_ERROR} with a {@link PathMigrationException}
     * ({@link PathMigrationException.Reason#NOT_ARMED}).
     *
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths
     */
    public void migrate() {
        checkEstablished();
        checkApm();
        loop.run(() -> {
            if (state == ESTABLISHED) {
                paths.force();
            }
        });
    }

    /**
     * After a migration, loads the former primary path as the alternate again and re-arms (what
     * {@link ConnectionOptions#withRearmAfterMigration} does by itself); {@link PathEvent.Type#ALTERNATE_FAILED}
     * when the connection has not migrated. Any thread.
     *
     * @throws PathMigrationException (ENOTSUP) when the device or port cannot migrate paths
     */
    public void rearm() {
        checkEstablished();
        checkApm();
        loop.run(() -> {
            if (state == ESTABLISHED) {
                paths.rearm();
            }
        });
    }

    /**
     * The QP's path migration state now ({@code ibv_query_qp}): MIGRATED (no usable alternate), REARM (loaded, the
     * peer not yet re-armed) or ARMED; {@code null} without a QP. Any thread.
     *
     * @return the state, or {@code null}
     */
    public MigState pathMigrationState() {
        try {
            return paths.state();
        } catch (RuntimeException closed) {
            return null;
        }
    }

    /**
     * {@return the path the QP uses now (local, remote, port), from its attributes; {@code null} without a QP. Any
     * thread}
     */
    public RdmaPath primaryPath() {
        return paths.primary();
    }

    private void checkApm() {
        LoopDevice d = device;
        if (d == null) {
            return;
        }
        CmId cm = id;
        int port = cm == null ? 1 : Math.max(1, cm.portNum());
        check(d.context(), port);
    }

    /**
     * Whether a QP on {@code port} of {@code device} can load an alternate path; a typed refusal that says why
     * otherwise (no {@code IBV_DEVICE_AUTO_PATH_MIG} — a soft device with one address has no alternate — or a
     * RoCE/iWARP port where the provider loads none).
     */
    static void check(DeviceContext device, int port) {
        String name = device.device().name();
        if (!device.queryDevice().supportsAutoPathMigration()) {
            throw new PathMigrationException("ibv_modify_qp", PathMigrationException.Reason.NO_AUTO_PATH_MIG, name
                    + " has no automatic path migration (IBV_DEVICE_AUTO_PATH_MIG is not set; a soft-roce device"
                    + " needs a second address for an alternate path); reconnect over another path instead");
        }
        if (!device.migratesPaths(port)) {
            String link = device.queryPort(port).linkLayer() == PortAttributes.LINK_LAYER_ETHERNET ? "RoCE"
                    : "not InfiniBand (iWARP?)";
            throw new PathMigrationException("ibv_modify_qp", PathMigrationException.Reason.LINK_LAYER, name
                    + " port " + port + " is " + link + ": the device claims automatic path migration, but Linux"
                    + " loads alternate paths on InfiniBand ports only (IBV_QP_ALT_PATH is EINVAL on RoCE); reconnect"
                    + " over another path instead");
        }
    }

    LoopDevice loopDevice() {
        return device;
    }

    void pathEvent(PathEvent e) {
        safely(() -> handler.onPathEvent(this, e));
    }

    // ---- helpers ----

    private void notifyError(Throwable t) {
        if (errorNotified) {
            LOG.debug("{}: a second error after the first was reported: {}", this, t.toString());
            return;
        }
        errorNotified = true;
        if (handler == NO_HANDLER) {
            LOG.debug("{} failed before anyone accepted it: {}", this, t.toString());
            return;
        }
        safely(() -> handler.onError(this, t));
    }

    private void notifyClosed() {
        if (!closedNotified) {
            closedNotified = true;
            safely(() -> handler.onClosed(this));
        }
    }

    private void safely(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    private void quietly(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("{}: {} failed: {}", this, what, e.toString());
        }
    }

    @Override
    public String toString() {
        return "Connection[" + (isPassive() ? "from " : "to ") + remote + " " + state + "]";
    }
}
