package dev.ibex.cm.endpoint;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.DatagramTable.Action;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.UdParam;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An unreliable datagram endpoint ({@code RDMA_PS_UDP} id with a UD QP), bound to an address of an RDMA device.
 * Sends go to {@link UdPeer}s: remote UD services found with {@link #resolve} (SIDR), reply addresses made with
 * {@link #peerOf} from received datagrams, or multicast groups {@link #join joined}. Received datagrams carry the
 * 40-byte GRH in front of the payload. With {@link DatagramOptions#listen()} the endpoint answers SIDR requests.
 * Driven by {@link DatagramTable}; every callback runs on {@link #loop()}; the data path is loop-confined and
 * allocation-free like {@link Connection}'s. What the loop and the send queue call is {@link DatagramEvents}, not
 * this class's API; the way to BOUND (registration, id, bind, SIDR admission) is {@link DatagramSetup}.
 * Threading: the data path and the queries marked so are loop-thread only; binding, resolving, joining,
 * {@link #close()} and the other queries may be called from any thread.
 */
public final class Datagram {
    static final Logger LOG = LoggerFactory.getLogger(Datagram.class);
    static final DatagramHandler NO_HANDLER = new DatagramHandler() {};

    final EventLoop loop;
    final InetSocketAddress address;
    private final DatagramOptions options;
    final DatagramHandler handler;
    volatile DatagramState state = DatagramState.IDLE;
    volatile InetSocketAddress localAddress;
    CmId id;
    int handle = -1;
    LoopDevice device;
    QueuePair qp;
    CompletionQueue cq;
    int cqReserved;
    SendQueue sq;
    ReceiveQueue rq;
    int mtu;
    Throwable fatal;
    /** The QP whose device-side drops count (kept after it is destroyed: its count stays readable). */
    volatile QueuePair countedQp;
    /** Receives that completed in error while bound (written on the loop). */
    volatile long failedReceives;
    private final List<UdPeer> peers = new ArrayList<>();
    private final List<Membership> memberships = new ArrayList<>();
    final List<Resolution> exchanges = new ArrayList<>();
    /** What the loop and the send queue call (the context of the id and the QP). */
    final DatagramEvents events = new DatagramEvents(this);
    /** Registration, id, bind and SIDR admission: the way to BOUND. */
    final DatagramSetup setup = new DatagramSetup(this);

    private Datagram(EventLoop loop, InetSocketAddress address, DatagramOptions options, DatagramHandler handler) {
        this.loop = loop;
        this.address = address;
        this.options = options;
        this.handler = handler == null ? NO_HANDLER : handler;
    }

    /**
     * Binds on the group's next loop with default options; see {@link #bind(EventLoop, InetSocketAddress,
     * DatagramOptions, DatagramHandler)}. Any thread.
     *
     * @param group the loops to pick from (round-robin)
     * @param address an address of an RDMA device; port 0 picks one
     * @param handler told of the outcome and everything after, on the endpoint's loop
     * @return the endpoint, binding
     */
    public static Datagram bind(EventLoopGroup group, InetSocketAddress address, DatagramHandler handler) {
        return bind(group.next(), address, DatagramOptions.DEFAULT, handler);
    }

    /**
     * Starts binding to {@code address} (an address of an RDMA device; port 0 picks one) and returns at once;
     * {@link DatagramHandler#onBound} or {@link DatagramHandler#onError} follows.
     *
     * @throws IllegalArgumentException for the wildcard address (a UD QP needs its device)
     * @param loop the loop the endpoint lives on; any thread may call this
     * @param address an address of an RDMA device; port 0 picks one
     * @param options queue sizes
     * @param handler told of the outcome and everything after, on {@code loop}
     * @return the endpoint, binding
     */
    public static Datagram bind(EventLoop loop, InetSocketAddress address, DatagramOptions options,
            DatagramHandler handler) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        if (address.getAddress() == null || address.getAddress().isAnyLocalAddress()) {
            throw new IllegalArgumentException("bind a datagram endpoint to an address of an RDMA device, not "
                    + address + ": its UD QP lives on that device");
        }
        Datagram d = new Datagram(loop, address, options, handler);
        loop.run(() -> {
            if (d.setup.prepare()) {
                d.input(Input.START, null);
            }
        });
        return d;
    }

    /** A datagram endpoint in IDLE with its id (loop thread; tests walk from here). */
    static Datagram idle(EventLoop loop, InetSocketAddress address, DatagramOptions options, DatagramHandler h) {
        Datagram d = new Datagram(loop, address, options, h);
        d.setup.prepare();
        return d;
    }

    // ---- queries ----

    /** {@return the loop the endpoint lives on} */
    public EventLoop loop() {
        return loop;
    }

    /** {@return where the endpoint is in its life (binding, bound, closed …)} */
    public DatagramState state() {
        return state;
    }

    /** {@return the options the endpoint was made with} */
    public DatagramOptions options() {
        return options;
    }

    /** {@return the bound address (port assigned), once bound} */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** {@return the QP number peers send to} */
    public int qpNum() {
        QueuePair q = qp;
        return q == null ? 0 : q.qpNum();
    }

    /** {@return the largest payload one datagram can carry (the port's active MTU)} */
    public int maxPayload() {
        return mtu;
    }

    /** {@return the device the endpoint is bound to, or {@code null} before its address is resolved} */
    public DeviceContext device() {
        LoopDevice d = device;
        return d == null ? null : d.context();
    }

    /** {@return the endpoint's CM id, or {@code null} before it exists (for diagnostics)} */
    public CmId cmId() {
        return id;
    }

    /** {@return the UD QP, or {@code null} before binding and after teardown (for diagnostics)} */
    public QueuePair qp() {
        return qp;
    }

    /** {@return the registered buffer pool of the datagram's operations, or {@code null} before it is bound} */
    public dev.ibex.cm.buffer.BufferPool pool() {
        LoopDevice d = loopDevice();
        return d == null ? null : d.pool();
    }

    LoopDevice loopDevice() {
        return device;
    }

    /** {@return how many receives are posted now (loop thread)} */
    public int postedReceives() {
        return rq == null ? 0 : rq.posted();
    }

    /**
     * Datagrams that reached this endpoint and were dropped before the application got them: those its device dropped
     * ({@link QueuePair#receiveDrops()}: no receive posted, a Q_Key mismatch, too long …) plus receives that completed
     * in error. On a device that does not report its drops ({@link #seesDeviceDrops()} false: rdma-core) only the
     * latter count. Any thread.
     *
     * @return the datagrams dropped so far
     */
    public long receiveDrops() {
        QueuePair q = countedQp;
        long device = q == null ? 0 : q.receiveDrops();
        return Math.max(0, device) + failedReceives;
    }

    /**
     * {@return whether {@link #receiveDrops()} includes what the device dropped (soft-roce: yes; rdma-core: no). Any
     * thread}
     */
    public boolean seesDeviceDrops() {
        QueuePair q = countedQp;
        return q == null || q.receiveDrops() != QueuePair.DROPS_NOT_VISIBLE;
    }

    /** {@return whether a send may be posted now (loop thread)} */
    public boolean isWritable() {
        return sq != null && state == DatagramState.BOUND && sq.isWritable();
    }

    /** {@return how many sends may be posted now before the send queue is full; 0 unless bound (loop thread)} */
    public int writableSlots() {
        return sq == null || state != DatagramState.BOUND ? 0 : sq.writableSlots();
    }

    // ---- commands ----

    /** Closes (any thread): leaves every group, destroys QP, address handles and id. Idempotent. */
    public void close() {
        try {
            loop.run(() -> input(Input.CLOSE, null));
        } catch (RejectedExecutionException terminated) {
            // gone with its loop
        }
    }

    /** Tears down at once: the loop's shutdown deadline passed (loop thread). */
    void abort() {
        if (state != DatagramState.CLOSED) {
            state = DatagramState.CLOSED;
            release();
            safely(() -> handler.onClosed(this));
        }
    }

    /**
     * Looks up the UD service at {@code remote} (SIDR) with up to {@value CmId#MAX_CONNECT_PRIVATE_DATA_UDP} bytes
     * of private data; {@link DatagramHandler#onResolved} or {@link DatagramHandler#onResolveFailed} follows. Any
     * thread.
     *
     * @param remote the UD service's address and port
     * @param privateData sent with the request, or {@code null}
     * @throws IllegalArgumentException when the private data is too long
     */
    public void resolve(InetSocketAddress remote, byte[] privateData) {
        Objects.requireNonNull(remote, "remote");
        byte[] data = privateData == null ? new byte[0] : privateData.clone();
        if (data.length > CmId.MAX_CONNECT_PRIVATE_DATA_UDP) {
            throw new IllegalArgumentException("a UD service lookup carries at most "
                    + CmId.MAX_CONNECT_PRIVATE_DATA_UDP + " bytes of private data, got " + data.length);
        }
        loop.run(() -> {
            if (state != DatagramState.BOUND) {
                safely(() -> handler.onResolveFailed(this, remote, new IllegalStateException(
                        "the datagram endpoint is " + state + ", not BOUND")));
                return;
            }
            Resolution r;
            try {
                r = Resolution.active(this, remote, data);
            } catch (RuntimeException e) {
                safely(() -> handler.onResolveFailed(this, remote, e));
                return;
            }
            exchanges.add(r);
            r.input(Input.START, null);
        });
    }

    /**
     * Joins the multicast group {@code group} ({@code sendOnly}: send without receiving, no IGMP join). The
     * outcome arrives as {@link DatagramHandler#onJoined} or {@link DatagramHandler#onMembershipError}. Any thread.
     *
     * @param group the multicast group's address and port
     * @param sendOnly whether to send only (receive nothing)
     * @return the membership, joining
     * @throws IllegalArgumentException when the address is not a multicast address
     */
    public Membership join(InetSocketAddress group, boolean sendOnly) {
        Objects.requireNonNull(group, "group");
        if (!group.getAddress().isMulticastAddress()) {
            throw new IllegalArgumentException(group.getAddress() + " is not a multicast address");
        }
        Membership m = new Membership(this, group, sendOnly);
        loop.run(() -> {
            if (state != DatagramState.BOUND) {
                safely(() -> handler.onMembershipError(this, m, new IllegalStateException(
                        "the datagram endpoint is " + state + ", not BOUND")));
                return;
            }
            memberships.add(m);
            m.input(Input.START, null);
        });
        return m;
    }

    /** {@return the memberships not yet left (loop thread)} */
    public List<Membership> memberships() {
        return List.copyOf(memberships);
    }

    /**
     * A reply address for the sender of {@code message} (from its GRH and source QP), using the default Q_Key.
     * Loop thread; creates an address handle (close it, or let the endpoint's close do it).
     *
     * @param message a received datagram with a valid GRH
     * @return the sender's reply address
     * @throws IllegalArgumentException when the datagram carries no valid GRH
     * @throws IllegalStateException when not bound or off the loop
     */
    public UdPeer peerOf(Buffer message) {
        checkLoop();
        checkBound();
        Gid source = message.sourceGid();
        if (source == null) {
            throw new IllegalArgumentException("the datagram carries no valid GRH: no reply address");
        }
        int port = id.portNum();
        int sgid = Math.max(0, device.context().gidIndexOf(port, Gid.of(localAddress.getAddress())));
        UdPeer p = new UdPeer(this, device.pd().createAddressHandle(AhAttr.roce(source, sgid, port)),
                message.sourceQp(), UdParam.RDMA_UDP_QKEY, null, null);
        peers.add(p);
        return p;
    }

    // ---- data path ----

    /** {@return a buffer of this endpoint's pool (loop thread)} */
    public Buffer allocate() {
        checkLoop();
        checkBound();
        return device.pool().acquire();
    }

    /**
     * Sends {@code buffer[offset, offset+length)} as one datagram to {@code peer}; consumes the buffer.
     *
     * @throws IllegalArgumentException when the payload exceeds the path MTU or the peer belongs elsewhere
     * @throws IllegalStateException when not bound, off the loop, or the send queue is full
     * @param peer the destination, made by this endpoint
     * @param buffer a held buffer of this endpoint's pool, consumed
     * @param offset where the payload starts in the buffer
     * @param length the payload's length in bytes, at most {@link #maxPayload()}
     * @param attachment the caller's value, handed back with {@code onComplete} or {@code onFailed}
     */
    public void send(UdPeer peer, Buffer buffer, int offset, int length, long attachment) {
        checkSend(peer, buffer, offset, length);
        int i = sq.begin(Operation.SEND, buffer, attachment);
        sq.batch().ud(i, peer.ah(), peer.qpNum(), peer.qkey());
        sq.commit(i, Operation.SEND, buffer, offset, length);
    }

    /**
     * Sends {@code buffer[offset, offset+length)} with immediate data (e.g. the sender's QP number, the mc example's
     * convention) as one datagram to {@code peer}; consumes the buffer. Loop thread.
     *
     * @param peer the destination, made by this endpoint
     * @param buffer a held buffer of this endpoint's pool, consumed
     * @param offset where the payload starts in the buffer
     * @param length the payload's length in bytes, at most {@link #maxPayload()}
     * @param immData the immediate data, in host order
     * @param attachment the caller's value, handed back with {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the payload exceeds the path MTU or the peer belongs elsewhere
     * @throws IllegalStateException when not bound, off the loop, or the send queue is full
     */
    public void sendWithImm(UdPeer peer, Buffer buffer, int offset, int length, int immData, long attachment) {
        checkSend(peer, buffer, offset, length);
        int i = sq.begin(Operation.SEND_WITH_IMM, buffer, attachment);
        sq.batch().ud(i, peer.ah(), peer.qpNum(), peer.qkey()).immData(i, immData);
        sq.commit(i, Operation.SEND_WITH_IMM, buffer, offset, length);
    }

    private void checkSend(UdPeer peer, Buffer b, int offset, int length) {
        checkLoop();
        checkBound();
        if (peer.datagram() != this || peer.isClosed()) {
            throw new IllegalArgumentException("the peer belongs to another datagram endpoint or is closed");
        }
        if (b.pool() != device.pool()) {
            throw new IllegalArgumentException("the buffer belongs to " + b.pool() + ", not to this endpoint's "
                    + device.pool());
        }
        if (offset < 0 || length < 0 || offset + length > b.capacity()) {
            throw new IllegalArgumentException("range [" + offset + ", " + (offset + length) + ") lies outside the "
                    + b.capacity() + "-byte buffer");
        }
        if (length > mtu) {
            throw new IllegalArgumentException("a datagram carries at most the path MTU of " + mtu + " bytes, got "
                    + length);
        }
    }

    private void checkLoop() {
        if (!loop.inEventLoop()) {
            throw new IllegalStateException("use the datagram endpoint on its event loop (" + loop + ")");
        }
    }

    private void checkBound() {
        if (state != DatagramState.BOUND) {
            throw new IllegalStateException("the datagram endpoint is " + state + ", not BOUND");
        }
    }

    // ---- the state machine ----

    void input(Input in, CmEvent e) {
        DatagramState from = state;
        StateTable.Transition<DatagramState, Action> t = DatagramTable.TABLE.at(from, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a datagram endpoint that is "
                    + from);
        }
        if (t.action() == Action.NONE) {
            return;
        }
        state = t.next();
        try {
            switch (t.action()) {
                case BIND -> setup.bind();
                case NEW_REQUEST -> setup.request(e);
                case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
                case MEMBERSHIP -> {
                    if (e.context() instanceof Membership m && memberships.contains(m)) {
                        m.input(Input.of(e.type()), e);
                    }
                }
                case FAIL -> {
                    release();
                    Throwable err = in == Input.FATAL && fatal != null ? fatal : Failures.of(in, e, address, true, null);
                    safely(() -> handler.onError(this, err));
                    safely(() -> handler.onClosed(this));
                }
                case CLOSE -> {
                    release();
                    safely(() -> handler.onClosed(this));
                }
                case NONE, REFUSE -> throw new AssertionError();
            }
        } catch (RuntimeException ex) {
            if (state != DatagramState.CLOSED) {
                state = DatagramState.CLOSED;
                release();
                safely(() -> handler.onError(this, ex));
                safely(() -> handler.onClosed(this));
            } else {
                LOG.warn("{}: {}", this, ex.toString());
            }
        }
    }

    /** Releases in verbs order: exchanges, memberships (left before the id goes), QP, work, AHs, CQ, id. */
    void release() {
        for (Resolution r : new ArrayList<>(exchanges)) {
            r.abort();
        }
        for (Membership m : new ArrayList<>(memberships)) {
            m.input(Input.CLOSE, null);
        }
        if (qp != null) {
            quietly("destroying the QP", id::destroyQp);
            qp = null;
        }
        if (sq != null) {
            sq.failAll();
        }
        if (rq != null) {
            rq.reclaimAll();
        }
        for (UdPeer p : peers) {
            quietly("destroying an address handle", p::destroy);
        }
        peers.clear();
        if (cq != null) {
            device.unreserveCq(cq, cqReserved);
            cq = null;
        }
        if (id != null) {
            quietly("destroying the CM id", id::close);
        }
        if (handle >= 0) {
            loop.unregister(handle, events);
            handle = -1;
        }
    }

    // ---- from exchanges and memberships ----

    void resolved(Resolution r, UdParam ud) {
        exchanges.remove(r);
        if (state != DatagramState.BOUND) {
            return;
        }
        UdPeer p;
        try {
            p = new UdPeer(this, device.pd().createAddressHandle(ud.ahAttr()), ud.qpNum(), ud.qkey(), r.remote(),
                    ud.privateData());
        } catch (RuntimeException e) {
            safely(() -> handler.onResolveFailed(this, r.remote(), e));
            return;
        }
        peers.add(p);
        safely(() -> handler.onResolved(this, p));
    }

    void resolveFailed(Resolution r, Throwable error) {
        exchanges.remove(r);
        if (state == DatagramState.BOUND) {
            safely(() -> handler.onResolveFailed(this, r.remote(), error));
        }
    }

    void ended(Resolution r) {
        exchanges.remove(r);
    }

    void forget(UdPeer p) {
        peers.remove(p);
        p.destroy();
    }

    void joined(Membership m) {
        safely(() -> handler.onJoined(this, m));
    }

    void membershipFailed(Membership m, Throwable error) {
        memberships.remove(m);
        safely(() -> handler.onMembershipError(this, m, error));
    }

    void left(Membership m) {
        memberships.remove(m);
        safely(() -> handler.onLeft(this, m));
    }

    void safely(Runnable r) {
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
        return "Datagram[" + (localAddress != null ? localAddress : address) + " " + state + "]";
    }
}
