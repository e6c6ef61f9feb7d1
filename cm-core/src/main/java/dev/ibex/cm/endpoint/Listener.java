package dev.ibex.cm.endpoint;

import dev.ibex.cm.endpoint.ListenerTable.Action;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.PortSpace;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A passive RC endpoint: binds, listens, and turns each CONNECT_REQUEST into a {@link ConnectionRequest} whose
 * connection lives in REQUESTED until the application accepts or rejects it. Accepted connections move to another
 * loop of the group (round-robin) unless {@link ListenOptions#childrenOnListenerLoop()}. Driven by
 * {@link ListenerTable}; callbacks run on {@link #loop()}. What the loop calls is {@link ListenerEvents}, not this
 * class's API. Threading: listening, {@link #close()} and the queries may be called from any thread; the rest runs
 * on the listener's loop.
 */
public final class Listener {
    private static final Logger LOG = LoggerFactory.getLogger(Listener.class);

    private final EventLoop loop;
    private final InetSocketAddress address;
    private final ListenOptions options;
    private final ListenerHandler handler;
    private volatile ListenerState state = ListenerState.IDLE;
    private volatile InetSocketAddress localAddress;
    private CmId id;
    private int handle = -1;
    private final HalfOpen halfOpen;
    private long lastOverloadWarning;
    private long refusedSinceWarning;
    /** What the loop calls (the context of the listening id). */
    private final ListenerEvents events = new ListenerEvents(this);

    private Listener(EventLoop loop, InetSocketAddress address, ListenOptions options, ListenerHandler handler) {
        this.loop = loop;
        this.address = address;
        this.options = options;
        this.handler = handler;
        this.halfOpen = new HalfOpen(options.maxHalfOpen(), options.maxHalfOpenPerSource());
    }

    /**
     * Listens on {@code address} (port 0: any free port) on the group's next loop with default options. Any thread.
     *
     * @param group the loops to pick from (round-robin); accepted connections are spread over it
     * @param address the address to listen on; the wildcard listens on every device
     * @param handler told of the outcome and of each request, on the listener's loop
     * @return the listener, starting
     */
    public static Listener listen(EventLoopGroup group, InetSocketAddress address, ListenerHandler handler) {
        return listen(group.next(), address, ListenOptions.DEFAULT, handler);
    }

    /**
     * Starts listening on {@code address} from {@code loop}; {@link ListenerHandler#onListening} or
     * {@link ListenerHandler#onError} follows. A specific IP listens on that device only; a wildcard on all.
     *
     * @param loop the loop the listener lives on; any thread may call this
     * @param address the address to listen on (port 0: any free port)
     * @param options backlog, request timeout, half-open bounds, options of accepted connections
     * @param handler told of the outcome and of each request, on {@code loop}
     * @return the listener, starting
     */
    public static Listener listen(EventLoop loop, InetSocketAddress address, ListenOptions options,
            ListenerHandler handler) {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        Listener l = new Listener(loop, address, options, handler);
        loop.run(() -> {
            if (l.prepare()) {
                l.input(Input.START, null);
            }
        });
        return l;
    }

    /** A listener in IDLE with its id, not bound (loop thread; tests walk from here). */
    static Listener idle(EventLoop loop, InetSocketAddress address, ListenOptions options, ListenerHandler handler) {
        Listener l = new Listener(loop, address, options, handler);
        l.prepare();
        return l;
    }

    private boolean prepare() {
        try {
            handle = loop.register(events);
            id = loop.cmChannel().createId(PortSpace.TCP, events);
            return true;
        } catch (RuntimeException e) {
            state = ListenerState.CLOSED;
            release();
            safely(() -> handler.onError(this, e));
            safely(() -> handler.onClosed(this));
            return false;
        }
    }

    /** {@return the listening CM id (for diagnostics)} */
    public CmId cmId() {
        return id;
    }

    /** {@return the loop the listener lives on} */
    public EventLoop loop() {
        return loop;
    }

    /** {@return where the listener is in its life (binding, listening, closing, closed)} */
    public ListenerState state() {
        return state;
    }

    /** {@return the bound address (with the port actually used), once listening; else {@code null}} */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    /** {@return the options the listener was made with} */
    public ListenOptions options() {
        return options;
    }

    /** {@return the device the listening id is bound to, or {@code null} (a wildcard address, or not bound yet)} */
    public DeviceContext device() {
        CmId i = id;
        return i == null ? null : i.device();
    }

    /** {@return how many connections are requested or accepted but not yet established (any thread)} */
    public int halfOpen() {
        return halfOpen.open();
    }

    /** {@return how many requests were refused for exceeding the half-open bounds so far (any thread)} */
    public long refusedRequests() {
        return halfOpen.refused();
    }

    HalfOpen halfOpenBounds() {
        return halfOpen;
    }

    /** The loop an accepted connection moves to. */
    EventLoop childLoop() {
        return options.childrenOnListenerLoop() ? loop : loop.group().next();
    }

    /** Stops listening (any thread). Requests already delivered stay answerable. Idempotent. */
    public void close() {
        try {
            loop.run(() -> input(Input.CLOSE, null));
        } catch (RejectedExecutionException terminated) {
            // gone with its loop
        }
    }

    /** Tears down at once: the loop's shutdown deadline passed (loop thread). */
    void abort() {
        if (state != ListenerState.CLOSED) {
            state = ListenerState.CLOSED;
            release();
            safely(() -> handler.onClosed(this));
        }
    }

    void input(Input in, CmEvent e) {
        ListenerState from = state;
        StateTable.Transition<ListenerState, Action> t = ListenerTable.TABLE.at(from, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a listener that is " + from);
        }
        if (t.action() == Action.NONE) {
            return;
        }
        state = t.next();
        try {
            switch (t.action()) {
                case LISTEN -> {
                    id.bind(address);
                    id.listen(options.backlog());
                    localAddress = id.localAddress();
                    safely(() -> handler.onListening(this));
                }
                case NEW_REQUEST -> request(e);
                case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
                case FAIL -> {
                    release();
                    safely(() -> handler.onError(this, Failures.of(in, e, localAddress, false, null)));
                    safely(() -> handler.onClosed(this));
                }
                case CLOSE -> {
                    release();
                    safely(() -> handler.onClosed(this));
                }
                case ADDRESS_CHANGED -> LOG.info("{}: the local address changed its hardware address", this);
                case NONE, REFUSE -> throw new AssertionError();
            }
        } catch (RuntimeException ex) {
            if (state != ListenerState.CLOSED) {
                state = ListenerState.CLOSED;
                release();
                safely(() -> handler.onError(this, ex));
                safely(() -> handler.onClosed(this));
            } else {
                LOG.warn("{}: {}", this, ex.toString());
            }
        }
    }

    private void request(CmEvent e) {
        InetSocketAddress peer = e.id().peerAddress();
        InetAddress source = peer == null ? null : peer.getAddress();
        String refusal = source == null ? null : halfOpen.enter(source);
        if (refusal != null) {
            refuse(e.id(), peer, refusal);
            return;
        }
        Connection c;
        try {
            c = Connection.requested(this, e, options.connection(), options.requestTimeout(), source);
        } catch (RuntimeException ex) {
            if (source != null) {
                halfOpen.exit(source);
            }
            LOG.warn("{}: cannot take a connection request: {}", this, ex.toString());
            EventLoop.rejectStray(e.id());
            return;
        }
        ConnectionRequest r = new ConnectionRequest(c, this);
        try {
            handler.onConnectionRequest(r);
        } catch (Throwable t) {
            loop.reportUncaught(t);
            r.reject(dev.ibex.cm.RejectReason.POLICY_FAILED.encode(t.toString()));
        }
    }

    /**
     * Over a half-open bound: nothing is created for the request; it is answered "no resources" (soft-roce sends
     * IB CM reject reason 3, librdmacm 28) with the reason in the private data, and counted. A flood is logged once
     * per ten seconds, not once per request.
     */
    private void refuse(CmId requestId, InetSocketAddress peer, String refusal) {
        try {
            requestId.reject(dev.ibex.cm.RejectReason.OVERLOADED.encode(refusal), CmId.REJECT_NO_RESOURCES);
        } catch (RuntimeException ignored) {
            // the peer learns from the destroy as well
        } finally {
            requestId.close();
        }
        refusedSinceWarning++;
        long now = System.nanoTime();
        if (lastOverloadWarning == 0 || now - lastOverloadWarning > 10_000_000_000L) {
            LOG.warn("{}: refusing connection requests: {} (the last from {}); {} refused since the last warning, "
                    + "{} in all, {} half-open now", this, refusal, peer, refusedSinceWarning, halfOpen.refused(),
                    halfOpen.open());
            lastOverloadWarning = now;
            refusedSinceWarning = 0;
        } else {
            LOG.debug("{}: refused a connection request from {}: {}", this, peer, refusal);
        }
    }

    private void release() {
        if (id != null) {
            try {
                id.close();
            } catch (RuntimeException e) {
                LOG.warn("{}: destroying the id failed: {}", this, e.toString());
            }
        }
        if (handle >= 0) {
            loop.unregister(handle, events);
            handle = -1;
        }
    }

    private void safely(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            loop.reportUncaught(t);
        }
    }

    @Override
    public String toString() {
        return "Listener[" + (localAddress != null ? localAddress : address) + " " + state + "]";
    }
}
