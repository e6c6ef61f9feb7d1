package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;
import static dev.ibex.cm.endpoint.Connection.LOG;

import dev.ibex.cm.endpoint.ConnectionTable.Action;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.spi.CmEvent;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Drives a {@link Connection} through {@link ConnectionTable}: each input looks up its cell, moves to the next state
 * and runs the cell's action — one line per action, the work done by {@link ConnectionSetup} (towards ESTABLISHED)
 * and {@link ConnectionTeardown} (away from it). Also owns the state's deadline (connect, request, drain), which
 * arrives as {@link Input#TIMEOUT}, and the one way every part ends an established connection: {@link #fatal}.
 * Loop-confined.
 */
final class ConnectionMachine {
    private static final StateTable<ConnectionState, Action> TABLE = ConnectionTable.TABLE;

    private final Connection c;
    /** The deadline of the state the connection waits in, or {@code null}. */
    private ScheduledTask timer;

    ConnectionMachine(Connection c) {
        this.c = c;
    }

    /** Feeds one input through the table. */
    void input(Input in, CmEvent e) {
        ConnectionState from = c.state;
        StateTable.Transition<ConnectionState, Action> t = TABLE.at(from, in);
        if (t.action() == Action.REFUSE) {
            throw new IllegalStateException("cannot " + in.name().toLowerCase() + " a connection that is " + from);
        }
        if (t.action() == Action.NONE) {
            if (in.isCmEvent()) {
                LOG.debug("{}: {} ignored in {}", c, in, from);
            }
            return;
        }
        c.state = t.next();
        try {
            perform(t.action(), in, e, from);
        } catch (RuntimeException ex) {
            try {
                c.teardown.actionFailed(t.action(), ex);
            } catch (Throwable again) {
                ex.addSuppressed(again);
                c.teardown.terminate(ex);
            }
        }
    }

    private void perform(Action action, Input in, CmEvent e, ConnectionState from) {
        ConnectionSetup setup = c.setup;
        ConnectionTeardown teardown = c.teardown;
        switch (action) {
            case RESOLVE_ADDR -> {
                if (timer == null) { // connect() armed it already, before the gate
                    armTimer(c.options.connectTimeout());
                }
                c.id.resolveAddr(c.source, c.remote, c.options.resolveTimeoutMs());
            }
            case RESOLVE_ROUTE -> c.id.resolveRoute(c.options.resolveTimeoutMs());
            case CONNECT -> setup.connect();
            case ACCEPT -> setup.accept();
            case REJECT -> teardown.reject();
            case ESTABLISH -> setup.established(e);
            case ESTABLISH_USER_QP -> setup.establishUserQp(e);
            case FAIL -> teardown.attemptFailed(in, e, from);
            case PEER_DISCONNECT -> teardown.peerDisconnected();
            case DISCONNECT -> teardown.disconnect();
            case BREAK -> teardown.broken(in, e);
            case ABORT -> teardown.deviceRemoved(in, e);
            case FINISH, FORCE -> teardown.finish();
            case ADDRESS_CHANGED -> c.safely(() -> c.handler.onAddressChange(c));
            case REJECT_REQUEST -> EventLoop.rejectStray(e.id());
            case NONE, REFUSE -> throw new AssertionError(action);
        }
    }

    /** The established connection cannot go on: {@code cause} is what the handler hears. */
    void fatal(Throwable cause) {
        c.fatal = cause;
        input(Input.FATAL, null);
    }

    /**
     * A work request of the connection's failed: unless it was flushed (which a failure already reported), the QP is
     * in error and everything after it will flush (IBA 10.8.3.3), so nothing else would report the connection's end.
     */
    void failedUnlessFlushed(dev.ibex.cm.RdmaException error) {
        if (c.state == ESTABLISHED && error instanceof WorkCompletionException w && !w.isFlush()) {
            fatal(error);
        }
    }

    void armTimer(Duration d) {
        cancelTimer();
        ScheduledTask[] self = new ScheduledTask[1];
        self[0] = c.loop.schedule(() -> {
            if (timer == self[0]) {
                timer = null;
                input(Input.TIMEOUT, null);
            }
        }, d.toNanos(), TimeUnit.NANOSECONDS);
        timer = self[0];
    }

    void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }
}
