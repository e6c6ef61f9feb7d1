package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.endpoint.PathEvent;
import dev.ibex.cm.spi.AsyncEvent;

/**
 * The {@link ConnectionHandler} of a reactive connection: until ESTABLISHED it reports the attempt's outcome
 * (a connect {@code Mono}, a server's accept), afterwards it forwards every callback to the
 * {@link ReactiveConnection}. Runs on the connection's loop.
 */
final class ConnectionBridge implements ConnectionHandler {

    /** Who waits for the connection to be established. */
    interface Outcome {
        /** Established: the connection is ready (the outcome may dispose it when nobody wants it any more). */
        void established(ReactiveConnection connection);

        /** The attempt ended without a connection (typed {@code RdmaConnectException}, or a refusal). */
        void failed(Throwable error);
    }

    private final ConnectionHooks hooks;
    private final Outcome outcome;
    private ReactiveConnection rc;
    private boolean outcomeReported;

    ConnectionBridge(ConnectionHooks hooks, Outcome outcome) {
        this.hooks = hooks;
        this.outcome = outcome;
    }

    @Override
    public void onEstablished(Connection c) {
        rc = new ReactiveConnection(c, hooks);
        rc.established();
        outcomeReported = true;
        outcome.established(rc);
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        if (rc != null) {
            rc.received(message);
        } else {
            message.release();
        }
    }

    @Override
    public void onMessage(Connection c, dev.ibex.cm.buffer.BufferList message) {
        if (rc != null) {
            rc.received(message);
        } else {
            message.release();
        }
    }

    @Override
    public void onComplete(Connection c, Operation op, long attachment) {
        if (rc != null) {
            rc.completed(attachment);
        }
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        if (rc != null) {
            rc.failed(attachment, error);
        }
    }

    @Override
    public void onExposureEnded(Connection c, Exposure exposure) {
        if (rc != null) {
            rc.exposureEnded(exposure);
        }
    }

    @Override
    public void onWritabilityChanged(Connection c, boolean writable) {
        if (rc != null && writable) {
            rc.writable();
        }
    }

    @Override
    public void onDisconnected(Connection c) {
        if (rc != null) {
            rc.disconnected();
        }
    }

    @Override
    public void onPathEvent(Connection c, PathEvent event) {
        if (rc != null) {
            rc.pathEvent(event);
        }
    }

    @Override
    public void onAddressChange(Connection c) {
        if (rc != null) {
            rc.addressChanged();
        }
    }

    @Override
    public void onDeviceEvent(Connection c, AsyncEvent event) {
        if (rc != null) {
            rc.deviceEvent(event);
        }
    }

    @Override
    public void onError(Connection c, Throwable error) {
        if (rc != null) {
            rc.error(error);
        } else if (!outcomeReported) {
            outcomeReported = true;
            outcome.failed(error);
        }
    }

    @Override
    public void onClosed(Connection c) {
        if (rc != null) {
            rc.closed();
        } else if (!outcomeReported) {
            outcomeReported = true;
            outcome.failed(new IllegalStateException(c + " closed before it was established"));
        }
    }
}
