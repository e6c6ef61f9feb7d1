package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.cm.spi.PortSpace;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the route between two addresses with a temporary CM id on a loop (resolve address, resolve route,
 * destroy the id): what an alternate path for APM needs. Driven by {@link #TABLE}.
 */
final class RouteLookup implements LoopEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(RouteLookup.class);

    interface Callback {
        void resolved(RouteLookup lookup, PathRecord route, DeviceContext device, int port);

        void failed(RouteLookup lookup, Throwable error);
    }

    enum State { IDLE, ADDR_RESOLVING, ROUTE_RESOLVING, CLOSED }

    enum Action { NONE, REFUSE, RESOLVE_ADDR, RESOLVE_ROUTE, DONE, FAIL, REJECT_REQUEST }

    static final StateTable<State, Action> TABLE = build();

    private static StateTable<State, Action> build() {
        StateTable.Builder<State, Action> b = StateTable.builder("route lookup", State.class);
        Set<Input> failing = EnumSet.copyOf(Input.CM_ERRORS);
        failing.add(Input.CLOSE);
        failing.add(Input.FATAL);
        for (State s : State.values()) {
            b.on(s, Input.CONNECT_REQUEST, s, Action.REJECT_REQUEST);
        }
        b.on(State.IDLE, Input.START, State.ADDR_RESOLVING, Action.RESOLVE_ADDR)
                .on(State.IDLE, failing, State.CLOSED, Action.FAIL)
                .otherwise(State.IDLE, State.IDLE, Action.NONE);
        for (State s : EnumSet.of(State.ADDR_RESOLVING, State.ROUTE_RESOLVING)) {
            b.on(s, failing, State.CLOSED, Action.FAIL).on(s, Input.TIMEOUT, State.CLOSED, Action.FAIL)
                    .on(s, Input.START, s, Action.REFUSE);
        }
        b.on(State.ADDR_RESOLVING, Input.ADDR_RESOLVED, State.ROUTE_RESOLVING, Action.RESOLVE_ROUTE)
                .otherwise(State.ADDR_RESOLVING, State.ADDR_RESOLVING, Action.NONE);
        b.on(State.ROUTE_RESOLVING, Input.ROUTE_RESOLVED, State.CLOSED, Action.DONE)
                .otherwise(State.ROUTE_RESOLVING, State.ROUTE_RESOLVING, Action.NONE);
        b.on(State.CLOSED, Input.START, State.CLOSED, Action.REFUSE)
                .otherwise(State.CLOSED, State.CLOSED, Action.NONE).terminal(State.CLOSED);
        return b.build();
    }

    private final EventLoop loop;
    private final InetSocketAddress source;
    private final InetSocketAddress destination;
    private final int timeoutMs;
    private final Callback callback;
    private State state = State.IDLE;
    private CmId id;
    private int handle = -1;
    private ScheduledTask timer;

    RouteLookup(EventLoop loop, InetSocketAddress source, InetSocketAddress destination, int timeoutMs,
            Callback callback) {
        this.loop = loop;
        this.source = source;
        this.destination = destination;
        this.timeoutMs = timeoutMs;
        this.callback = callback;
    }

    /** Starts resolving (loop thread). */
    void start() {
        if (prepare()) {
            input(Input.START, null);
        }
    }

    /** Registers and creates the id without starting (tests walk from IDLE). */
    boolean prepare() {
        try {
            handle = loop.register(this);
            id = loop.cmChannel().createId(PortSpace.TCP, this);
            return true;
        } catch (RuntimeException e) {
            state = State.CLOSED;
            release();
            callback.failed(this, e);
            return false;
        }
    }

    CmId cmId() {
        return id;
    }

    State state() {
        return state;
    }

    void input(Input in, CmEvent e) {
        StateTable.Transition<State, Action> t = TABLE.at(state, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in + " a route lookup that is " + state);
        }
        if (t.action() == Action.NONE) {
            return;
        }
        state = t.next();
        try {
            switch (t.action()) {
                case RESOLVE_ADDR -> {
                    timer = loop.schedule(() -> input(Input.TIMEOUT, null), 2L * timeoutMs + 1000,
                            TimeUnit.MILLISECONDS);
                    id.resolveAddr(source, destination, timeoutMs);
                }
                case RESOLVE_ROUTE -> id.resolveRoute(timeoutMs);
                case DONE -> {
                    PathRecord route = id.route();
                    DeviceContext device = id.device();
                    int port = id.portNum();
                    release();
                    callback.resolved(this, route, device, port);
                }
                case FAIL -> {
                    release();
                    callback.failed(this, Failures.of(in, e, destination, false, null));
                }
                case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
                case NONE, REFUSE -> throw new AssertionError();
            }
        } catch (RuntimeException ex) {
            if (state != State.CLOSED) {
                state = State.CLOSED;
                release();
                callback.failed(this, ex);
            } else {
                LOG.warn("route lookup to {}: {}", destination, ex.toString());
            }
        }
    }

    private void release() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        if (id != null) {
            id.close();
        }
        if (handle >= 0) {
            loop.unregister(handle, this);
            handle = -1;
        }
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public void onCmEvent(CmEvent event) {
        input(Input.of(event.type()), event);
    }

    @Override
    public void close() {
        loop.run(() -> input(Input.CLOSE, null));
    }

    @Override
    public void abort() {
        if (state != State.CLOSED) {
            state = State.CLOSED;
            release();
        }
    }
}
