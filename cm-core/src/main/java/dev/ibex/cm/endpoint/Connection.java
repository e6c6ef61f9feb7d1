package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;

import dev.ibex.cm.PathMigrationException;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QueuePair;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable connection (RC QP on an {@code RDMA_PS_TCP} id), active ({@link #connect}) or accepted through a
 * {@link Listener}. Driven by {@link ConnectionTable}; every callback runs on {@link #loop()}.
 *
 * <p>Data path: {@link RdmaOperations} (loop thread; allocates nothing). Path migration: {@link PathMigration}.
 *
 * <p>Receiving: the connection keeps its receive window posted; a message belongs to the application until it
 * releases the buffer, and only then is a receive re-posted.
 *
 * <p>{@link #close()} (any thread, any state) disconnects, lets posted work flush (each outstanding operation
 * fails with a flush {@link WorkCompletionException}), then destroys QP, CQ and id. Once closed, operations throw
 * {@link IllegalStateException}.
 *
 * <p>This class is the public face and holds the state its parts share; the parts, one concept each and all
 * package-private: {@link ConnectionMachine} (the table's driver), {@link ConnectionSetup} (admission, the QP,
 * accept, establish), {@link ConnectionTeardown} (the close and failure paths, terminal callbacks),
 * {@link SendPath} (sends, the backlog, credits), {@link ReceivePath} (receives, fragments, delivery),
 * {@link ConnectionKeepalive}, and {@link ConnectionEvents}, the face the event loop and the send queue call.
 * Threading: the data path and the queries marked so are loop-thread only; connecting, {@link #close()}, the path
 * migration commands and the other queries may be called from any thread.
 */
public final class Connection implements RdmaOperations, PathMigration {
    static final Logger LOG = LoggerFactory.getLogger(Connection.class);
    static final byte[] NONE = new byte[0];
    static final ConnectionHandler NO_HANDLER = new ConnectionHandler() {};

    // ---- what the connection is (set at creation) ----
    final ConnectionOptions options;
    final InetSocketAddress remote;
    /** The local address an active connect resolves from, or {@code null}. */
    InetSocketAddress source;
    final Listener listener;

    // ---- the state every part shares (written on the loop thread only) ----
    volatile EventLoop loop;
    volatile ConnectionState state = IDLE;
    ConnectionHandler handler;
    CmId id;
    /** The loop registration (work request ids name it), or -1. */
    int handle = -1;
    /** The QP and its queues: made by {@link ConnectionSetup}, released by {@link ConnectionTeardown#release}. */
    LoopDevice device;
    QueuePair qp;
    CompletionQueue cq;
    boolean ownCq;
    int cqReserved;
    SendQueue sq;
    /** The connection's own receive window, or {@code null} on shared receives. */
    ReceiveQueue rq;
    /** Receives come from the loop device's SRQ (else from the connection's own window, {@link #rq}). */
    boolean shared;
    /** Credit flow control, when both ends take shared receives; {@code null} otherwise. */
    Credits credits;
    /** Private data this end sends with its connect, accept or reject. */
    byte[] outData = NONE;
    byte[] peerData = NONE;
    /** The peer's credit offer (the passive side learns it from the request, the active side from the reply). */
    CreditOffer peerOffer;
    ConnParam peerParam;
    /** The loop an accepted connection moves to. */
    EventLoop acceptLoop;
    /** The cause of the next {@link Input#FATAL}. */
    Throwable fatal;
    /** What ended the connection, as reported to the handler. */
    Throwable failure;

    // ---- the parts (one of each per connection, made here: nothing is allocated per message) ----
    final ConnectionEvents events = new ConnectionEvents(this);
    final ConnectionMachine machine = new ConnectionMachine(this);
    final ConnectionSetup setup = new ConnectionSetup(this);
    final ConnectionTeardown teardown = new ConnectionTeardown(this);
    final SendPath send = new SendPath(this);
    final ReceivePath receive = new ReceivePath(this);
    final ConnectionKeepalive keepalive = new ConnectionKeepalive(this);
    final AlternatePaths paths = new AlternatePaths(this);
    final Exposures exposures = new Exposures(this);
    /** Large messages by rendezvous, when both ends offered it (see {@link Rendezvous}). */
    final Rendezvous rendezvous = new Rendezvous(this);

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
        byte[] data = ConnectionSetup.connectData(privateData, options);
        ConnectionSetup.checkSource(source, remote);
        Connection c = new Connection(loop, options, remote, null, handler);
        c.source = source;
        c.outData = data;
        loop.run(c.setup::start);
        return c;
    }

    /** An active connection in IDLE: registered, with its id, not started (loop thread; tests walk from here). */
    static Connection idle(EventLoop loop, InetSocketAddress remote, ConnectionOptions options, ConnectionHandler h) {
        Connection c = new Connection(loop, options, remote, null, h);
        c.setup.prepare();
        return c;
    }

    /** A connection request arriving at {@code l}: the new id's connection, in REQUESTED (listener's loop). */
    static Connection requested(Listener l, CmEvent e, ConnectionOptions options, Duration requestTimeout,
            java.net.InetAddress halfOpenSource) {
        Connection c = new Connection(l.loop(), options, e.id().peerAddress(), l, null);
        c.setup.requested(e, requestTimeout, halfOpenSource);
        return c;
    }

    /** Replaces the handler (tests observing a request before it is accepted). */
    void handler(ConnectionHandler h) {
        handler = h;
    }

    // ---- queries ----

    /** {@return the loop the connection lives on (an accepted connection moves once, before it is established)} */
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

    /**
     * {@return the local address and port of the connection's CM id, or {@code null} before it is bound; after a
     * teardown released the id (a removed device) the last address it had}
     */
    public InetSocketAddress localAddress() {
        CmId i = id;
        if (i == null) {
            return lastLocalAddress;
        }
        try {
            InetSocketAddress a = i.localAddress();
            if (a != null) {
                lastLocalAddress = a;
            }
            return a;
        } catch (IllegalStateException released) {
            // the rdma-core provider refuses a destroyed id: error callbacks that log the address still get it
            return lastLocalAddress;
        }
    }

    /** What {@link #localAddress()} last read from the id. */
    private volatile InetSocketAddress lastLocalAddress;

    /** {@return the peer's address (the target of {@link #connect}, or the requester's)} */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /** {@return the device the connection runs on, or {@code null} before its address is resolved} */
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
        return send.isWritable();
    }

    /**
     * {@return how many operations may be posted now before the send queue (or the peer's credits) is full (loop
     * thread)}
     */
    public int writableSlots() {
        return send.writableSlots();
    }

    /**
     * The longest message this connection sends (loop thread, once established): the smaller of this end's and the
     * peer's {@link ConnectionOptions#maxMessageSize()} when the peer reassembles messages of several buffers, else
     * one pool buffer.
     *
     * @return the limit in bytes; 0 before the connection has a QP
     */
    public int maxMessageSize() {
        return send.maxMessageSize();
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

    /** {@return how many received messages the application holds and has not released (loop thread)} */
    public int heldMessages() {
        return receive.held();
    }

    /** Keepalive probes sent so far (loop thread; 0 without keepalive). */
    long keepaliveProbes() {
        return keepalive.probes();
    }

    // ---- commands ----

    /** Starts closing (any thread, any state); {@link ConnectionHandler#onClosed} follows. Idempotent. */
    public void close() {
        try {
            loop.run(() -> machine.input(Input.CLOSE, null));
        } catch (RejectedExecutionException terminated) {
            // the loop is gone and took the connection with it
        }
    }

    /** Tears down at once (the loop's shutdown deadline passed; tests); loop thread. */
    void abort() {
        teardown.abort();
    }

    /** Feeds one input through the table (loop thread). */
    void input(Input in, CmEvent e) {
        machine.input(in, e);
    }

    /** Accepts the request (any thread; {@link ConnectionRequest}); see {@link ConnectionSetup#accept}. */
    void accept(ConnectionHandler h, byte[] data, EventLoop target) {
        setup.acceptRequest(h, data, target);
    }

    /** Rejects the request (any thread; {@link ConnectionRequest}). */
    void reject(byte[] data) {
        byte[] d = ConnectionSetup.rejectData(data);
        loop.run(() -> {
            if (state == REQUESTED) {
                outData = d;
                machine.input(Input.REJECT, null);
            }
        });
    }

    // ---- data path (loop thread; bodies in SendPath) ----

    /** {@return a buffer of this connection's pool (loop thread); throws when the pool is exhausted} */
    public Buffer allocate() {
        checkLoop();
        checkEstablished();
        return device.pool().acquire();
    }

    /** {@return a buffer of this connection's pool, or {@code null} when it is exhausted (loop thread)} */
    public Buffer tryAllocate() {
        checkLoop();
        checkEstablished();
        return device.pool().tryAcquire();
    }

    /** {@return the registered buffer pool the connection's operations use, or {@code null} before its QP exists} */
    public dev.ibex.cm.buffer.BufferPool pool() {
        LoopDevice d = device;
        return d == null ? null : d.pool();
    }

    @Override
    public void send(Buffer buffer, int length, long attachment) {
        send.send(buffer, 0, length, attachment);
    }

    @Override
    public void send(Buffer buffer, int offset, int length, long attachment) {
        send.send(buffer, offset, length, attachment);
    }

    @Override
    public void send(BufferList message, long attachment) {
        send.send(message, false, 0, attachment);
    }

    @Override
    public void sendWithImm(BufferList message, int immData, long attachment) {
        send.send(message, true, immData, attachment);
    }

    @Override
    public void sendWithImm(Buffer buffer, int offset, int length, int immData, long attachment) {
        send.sendWithImm(buffer, offset, length, immData, attachment);
    }

    @Override
    public void write(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset, long attachment) {
        send.write(buffer, offset, length, target, targetOffset, attachment);
    }

    @Override
    public void writeWithImm(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset,
            int immData, long attachment) {
        send.writeWithImm(buffer, offset, length, target, targetOffset, immData, attachment);
    }

    @Override
    public void read(Buffer buffer, int offset, int length, RemoteBuffer source, long sourceOffset, long attachment) {
        send.read(buffer, offset, length, source, sourceOffset, attachment);
    }

    @Override
    public void compareAndSwap(Buffer result, int offset, RemoteBuffer target, long targetOffset, long expected,
            long desired, long attachment) {
        send.atomic(Operation.COMPARE_AND_SWAP, result, offset, target, targetOffset, expected, desired, attachment);
    }

    @Override
    public void fetchAndAdd(Buffer result, int offset, RemoteBuffer target, long targetOffset, long delta,
            long attachment) {
        send.atomic(Operation.FETCH_AND_ADD, result, offset, target, targetOffset, delta, 0, attachment);
    }

    @Override
    public void sendWithInvalidate(Buffer buffer, int offset, int length, int rkey, long attachment) {
        send.sendWithInvalidate(buffer, offset, length, rkey, attachment);
    }

    @Override
    public Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, long attachment) {
        return expose(buffer, offset, length, rights, Exposure.Mode.AUTO, attachment);
    }

    @Override
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

    @Override
    public void flush() {
        checkLoop();
        if (sq != null) {
            sq.flush();
        }
    }

    // ---- rendezvous ----

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

    // ---- APM (bodies in AlternatePaths) ----

    @Override
    public void alternatePath(InetSocketAddress localAlternate, InetSocketAddress remoteAlternate) {
        Objects.requireNonNull(localAlternate, "localAlternate");
        Objects.requireNonNull(remoteAlternate, "remoteAlternate");
        checkEstablished();
        paths.command(() -> paths.load(localAlternate, remoteAlternate));
    }

    @Override
    public void migrate() {
        checkEstablished();
        paths.command(paths::force);
    }

    @Override
    public void rearm() {
        checkEstablished();
        paths.command(paths::rearm);
    }

    @Override
    public MigState pathMigrationState() {
        try {
            return paths.state();
        } catch (RuntimeException closed) {
            return null;
        }
    }

    @Override
    public RdmaPath primaryPath() {
        return paths.primary();
    }

    // ---- for the parts and the package (loop thread) ----

    void checkLoop() {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("use the connection on its event loop (" + loop + "); from other threads "
                    + "hand the work over with connection.loop().execute(...)");
        }
    }

    void checkEstablished() {
        if (state != ESTABLISHED) {
            throw new IllegalStateException("the connection is " + state + (state == CLOSED ? "" : ", not ESTABLISHED"));
        }
    }

    LoopDevice loopDevice() {
        return device;
    }

    /** Whether the QP may still execute the peer's requests (so a window must be invalidated with LOCAL_INV). */
    boolean acceptsRequests() {
        return state == ESTABLISHED && qp != null;
    }

    /** Runs a handler callback; what it throws goes to the loop's uncaught handler. */
    void safely(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    /** Runs a provider call whose failure changes nothing (teardown); logs it. */
    void quietly(String what, Runnable r) {
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
