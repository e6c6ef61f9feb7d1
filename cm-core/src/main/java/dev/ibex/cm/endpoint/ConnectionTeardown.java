package dev.ibex.cm.endpoint;

import static dev.ibex.cm.endpoint.ConnectionState.*;
import static dev.ibex.cm.endpoint.Connection.LOG;
import static dev.ibex.cm.endpoint.Connection.NONE;
import static dev.ibex.cm.endpoint.Connection.NO_HANDLER;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.ConnectionTable.Action;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CompletionQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A connection's way out, whatever the state: the table's failure and close actions (a failed attempt, a peer's
 * disconnect, a local close, a broken or removed connection), the drain that waits for posted work to complete or
 * flush, the release of everything in verbs order, and the terminal callbacks — at most one
 * {@link ConnectionHandler#onError} and exactly one {@link ConnectionHandler#onClosed}, last, even when releasing
 * fails. Loop-confined.
 */
final class ConnectionTeardown {
    private final Connection c;
    private boolean closedNotified;
    private boolean errorNotified;
    /** Closing on a shared receive queue: the CQ was polled after the disconnect (see checkDrainedAfterCqPass). */
    private boolean cqPassed;

    ConnectionTeardown(Connection c) {
        this.c = c;
    }

    // ---- the table's actions ----

    /** REJECT: {@code rdma_reject} with the application's private data, then release. */
    void reject() {
        c.id.reject(c.outData);
        release();
        notifyClosed();
    }

    /** FAIL: an attempt that never became ESTABLISHED ends with a typed {@link RdmaConnectException}. */
    void attemptFailed(Input in, CmEvent e, ConnectionState from) {
        if (from == REQUESTED && in != Input.REJECTED) {
            // nobody answered: say so instead of leaving the peer to time out
            rejectQuietly(in == Input.TIMEOUT ? dev.ibex.cm.RejectReason.NO_ANSWER.encode(null)
                    : in == Input.CLOSE ? dev.ibex.cm.RejectReason.CLOSING.encode(null) : NONE);
        }
        release();
        RdmaConnectException x = in == Input.TIMEOUT ? Failures.timeout(from, c.remote, c.options.connectTimeout())
                : Failures.of(in, e, c.remote, false, c.fatal);
        c.failure = x;
        notifyError(x);
        notifyClosed();
    }

    /** PEER_DISCONNECT: answer, tell the handler, let the flushed work drain. */
    void peerDisconnected() {
        if (c.rendezvous.reading()) {
            Throwable err = ConnectionFailedException.cm(c.remote,
                    ConnectionFailedException.Reason.MESSAGE_CUT_SHORT, "the peer disconnected while this end "
                    + "was reading a message from it by rendezvous", null);
            c.failure = err;
            notifyError(err);
        }
        stopReceives();
        disconnectQuietly();
        c.machine.armTimer(c.options.drainTimeout());
        c.safely(() -> c.handler.onDisconnected(c));
        checkDrainedAfterCqPass();
    }

    /** DISCONNECT: the application closes; {@code rdma_disconnect}, let the flushed work drain. */
    void disconnect() {
        stopReceives();
        disconnectQuietly();
        c.machine.armTimer(c.options.drainTimeout());
        checkDrainedAfterCqPass();
    }

    /** BREAK: a CM error or a fatal event on the established connection: report it, disconnect, drain. */
    void broken(Input in, CmEvent e) {
        Throwable err = in != Input.FATAL ? ConnectionFailedException.cm(c.remote,
                ConnectionFailedException.Reason.CM_ERROR, in + " on the established connection",
                Failures.of(in, e, c.remote, false, null))
                : ConnectionFailedException.of(c.remote, c.fatal != null ? c.fatal
                : new RdmaException("ibv_get_async_event", 0, "fatal QP error"));
        c.failure = err;
        stopReceives();
        disconnectQuietly();
        c.machine.armTimer(c.options.drainTimeout());
        notifyError(err);
        checkDrainedAfterCqPass();
    }

    /** ABORT: the device is gone; report it and release at once. */
    void deviceRemoved(Input in, CmEvent e) {
        release();
        Throwable err = ConnectionFailedException.cm(c.remote, ConnectionFailedException.Reason.DEVICE_REMOVAL,
                "the RDMA device was removed", Failures.of(in, e, c.remote, false, null));
        c.failure = err;
        notifyError(err);
        notifyClosed();
    }

    /** FINISH (drained) and FORCE (not in time): release everything. */
    void finish() {
        release();
        notifyClosed();
    }

    // ---- when an action or the loop gives up ----

    /** A provider call inside an action failed. */
    void actionFailed(Action action, RuntimeException ex) {
        ConnectionState s = c.state;
        if (s == CLOSED) { // e.g. rdma_reject refused: finish releasing anyway
            LOG.warn("{}: {} failed: {}", c, action, ex.toString());
            release();
            notifyClosed();
            return;
        }
        if (s == ESTABLISHED || s == DISCONNECTING) {
            c.machine.fatal(ex);
            return;
        }
        RdmaConnectException.Reason reason = switch (action) {
            case RESOLVE_ADDR -> RdmaConnectException.Reason.ADDR_ERROR;
            case RESOLVE_ROUTE -> RdmaConnectException.Reason.ROUTE_ERROR;
            default -> RdmaConnectException.Reason.CONNECT_ERROR;
        };
        c.state = CLOSED;
        release();
        RdmaConnectException x = Failures.refused(reason, ex, c.remote, false);
        c.failure = x;
        notifyError(x);
        notifyClosed();
    }

    /**
     * The last resort when reporting a failure failed too (a bug, or a provider throwing where it should not): the
     * connection still ends with exactly one onError (if none came yet) and one onClosed.
     */
    void terminate(Throwable cause) {
        c.state = CLOSED;
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
            c.loop.reportUncaught(cause);
        } catch (Throwable ignored) {
            // the terminal callbacks above are what matters
        }
    }

    /** Tears down at once: the loop's shutdown deadline passed. */
    void abort() {
        if (c.state == CLOSED) {
            return;
        }
        ConnectionState from = c.state;
        c.state = CLOSED;
        release();
        if (ConnectionTable.ATTEMPTING.contains(from) || from == IDLE) {
            notifyError(Failures.of(Input.CLOSE, null, c.remote, false, null));
        }
        notifyClosed();
    }

    // ---- release and drain ----

    /** Releases everything in verbs order; the state is already CLOSED. */
    void release() {
        c.localAddress(); // remembered: the callbacks after the release may still ask for it (the id is gone)
        c.machine.cancelTimer();
        c.keepalive.stop();
        c.setup.leaveHalfOpen();
        c.setup.leaveGate();
        c.paths.close();
        if (c.qp != null) {
            if (c.device.srq() != null) {
                c.device.unbindQp(c.qp.qpNum());
            }
            c.quietly("destroying the QP", c.id::destroyQp); // first: nothing lands in our buffers any more
            c.qp = null;
        }
        if (c.sq != null) {
            c.sq.failAll();
        }
        c.rendezvous.failPosted();
        c.send.failBacklog();
        c.receive.abandonFragments();
        c.exposures.closeAll(); // the QP is gone: no window can be reached any more
        c.rendezvous.closeReceives();
        if (c.rq != null) {
            c.rq.reclaimAll();
        }
        c.receive.releaseEarly();
        if (c.cq != null) {
            CompletionQueue q = c.cq;
            c.cq = null;
            if (c.ownCq) {
                c.quietly("destroying the CQ", () -> c.device.destroyCq(q));
            } else {
                c.device.unreserveCq(q, c.cqReserved);
            }
        }
        if (c.id != null) {
            c.quietly("destroying the CM id", c.id::close);
        }
        if (c.handle >= 0) {
            c.loop.unregister(c.handle, c.events);
            c.handle = -1;
        }
    }

    /** In DISCONNECTING: once every posted work request has completed or flushed, the connection is drained. */
    void checkDrained() {
        if (c.state != DISCONNECTING) {
            return;
        }
        boolean sends = c.sq == null || c.sq.outstanding() == 0;
        // On an SRQ nothing of the QP's is posted: once the QP is in error (disconnect did that) and its sends are
        // flushed it is drained. QP_LAST_WQE_REACHED is not awaited: rxe never raises it, and where a device does,
        // a receive completed for the QP after it is gone finds no endpoint and goes back to the SRQ.
        boolean recvs = c.rq == null ? !c.shared || cqPassed : c.rq.posted() == 0;
        if (sends && recvs) {
            c.machine.input(Input.DRAINED, null);
        }
    }

    /**
     * With a window of its own a closing connection is drained when its posted receives come back flushed, after
     * every receive completed before them. On a shared receive queue nothing of its own is posted: the receives it
     * completed before the disconnect may still sit in the CQ, so it counts as drained only after a pass over the
     * CQ (from a task, not inside the CM event that brought the disconnect).
     */
    private void checkDrainedAfterCqPass() {
        if (!c.shared || c.cq == null) {
            checkDrained();
            return;
        }
        CompletionQueue q = c.cq;
        try {
            c.loop.execute(() -> {
                if (c.state == DISCONNECTING) {
                    c.loop.pollCq(q);
                    cqPassed = true;
                    checkDrained();
                }
            });
        } catch (RejectedExecutionException terminated) {
            cqPassed = true; // the loop is gone: nothing is polled any more
            checkDrained();
        }
    }

    private void stopReceives() {
        c.keepalive.stop();
        if (c.rq != null) {
            c.rq.stop();
        }
    }

    private void disconnectQuietly() {
        c.quietly("rdma_disconnect", c.id::disconnect);
    }

    private void rejectQuietly(byte[] data) {
        c.quietly("rdma_reject", () -> c.id.reject(data));
    }

    // ---- the terminal callbacks ----

    void notifyError(Throwable t) {
        if (errorNotified) {
            LOG.debug("{}: a second error after the first was reported: {}", c, t.toString());
            return;
        }
        errorNotified = true;
        if (c.handler == NO_HANDLER) {
            LOG.debug("{} failed before anyone accepted it: {}", c, t.toString());
            return;
        }
        c.safely(() -> c.handler.onError(c, t));
    }

    void notifyClosed() {
        if (!closedNotified) {
            closedNotified = true;
            c.safely(() -> c.handler.onClosed(c));
        }
    }
}
