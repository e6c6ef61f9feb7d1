package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.WcStatus;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * An established connection that failed, with a typed {@link #reason()} (as {@code RdmaConnectException} types a
 * failed connect). The {@link #getCause() cause} is what the provider reported: the failed operation's
 * {@link WorkCompletionException}, the async event, the CM event. It is what {@link ConnectionHandler#onError}
 * receives once the connection is up, and what every later operation of the connection refers to.
 */
public final class ConnectionFailedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** Why an established connection failed. */
    public enum Reason {
        /** The peer stopped acknowledging: transport retries exhausted (RETRY_EXC_ERR). It died or the path is down. */
        PEER_UNRESPONSIVE,
        /** The peer posted no receive within the RNR retries (RNR_RETRY_EXC_ERR). */
        RECEIVER_NOT_READY,
        /** The peer refused a remote access: bad key, range or rights (REM_ACCESS_ERR). */
        REMOTE_ACCESS,
        /** The peer found a request invalid or failed executing it (REM_INV_REQ_ERR, REM_OP_ERR). */
        REMOTE_ERROR,
        /** A local work request failed (LOC_* statuses and the rest). */
        LOCAL_ERROR,
        /** Keepalive probes went unanswered ({@link ConnectionOptions#withKeepalive}). */
        KEEPALIVE,
        /** The device reported a fatal QP, CQ or SRQ event. */
        FATAL_EVENT,
        /** The CM reported an error on the established connection. */
        CM_ERROR,
        /** The RDMA device was removed (the CM's DEVICE_REMOVAL or the device's DEVICE_FATAL, whichever came first). */
        DEVICE_REMOVAL,
        /** The QP refused to post work (it is in error). */
        POST_FAILED,
        /** The peer disconnected while this end was reading a message from it by rendezvous: the message is lost. */
        MESSAGE_CUT_SHORT
    }

    /** Why the connection failed. */
    private final Reason reason;
    /** The peer, or {@code null}. */
    private final InetSocketAddress remote;

    ConnectionFailedException(Reason reason, InetSocketAddress remote, String what, Throwable cause) {
        super(verbOf(cause), "the connection" + to(remote) + " failed: " + what
                + (cause == null || cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")"), cause);
        this.reason = reason;
        this.remote = remote;
    }

    /** {@return why the connection failed} */
    public Reason reason() {
        return reason;
    }

    /** {@return the peer, or {@code null} when unknown} */
    public InetSocketAddress remote() {
        return remote;
    }

    /** {@return the failed work completion's status, or {@code null} when it was not a work completion} */
    public WcStatus status() {
        return getCause() instanceof WorkCompletionException w ? w.status() : null;
    }

    static ConnectionFailedException of(InetSocketAddress remote, Throwable cause) {
        if (cause instanceof ConnectionFailedException c) {
            return c;
        }
        if (cause instanceof WorkCompletionException w) {
            return switch (w.status()) {
                case RETRY_EXC_ERR -> new ConnectionFailedException(Reason.PEER_UNRESPONSIVE, remote, "the peer "
                        + "stopped acknowledging; it is gone or the path to it is down", w);
                case RNR_RETRY_EXC_ERR -> new ConnectionFailedException(Reason.RECEIVER_NOT_READY, remote, "the peer "
                        + "posted no receive within the RNR retries", w);
                case REM_ACCESS_ERR -> new ConnectionFailedException(Reason.REMOTE_ACCESS, remote, "the peer "
                        + "refused a remote access (key, range or rights)", w);
                case REM_INV_REQ_ERR, REM_OP_ERR, REM_ABORT_ERR, REM_INV_RD_REQ_ERR -> new ConnectionFailedException(
                        Reason.REMOTE_ERROR, remote, "the peer could not execute a request", w);
                default -> new ConnectionFailedException(Reason.LOCAL_ERROR, remote, "a work request failed", w);
            };
        }
        return new ConnectionFailedException(Reason.LOCAL_ERROR, remote, "an operation failed", cause);
    }

    static ConnectionFailedException fatalEvent(InetSocketAddress remote, AsyncEventType type, String device) {
        if (type == AsyncEventType.DEVICE_FATAL) { // the device is gone: the same end as the CM's DEVICE_REMOVAL
            return new ConnectionFailedException(Reason.DEVICE_REMOVAL, remote, "DEVICE_FATAL on " + device
                    + ": the RDMA device is gone", null);
        }
        return new ConnectionFailedException(Reason.FATAL_EVENT, remote, type + " on " + device
                + ": the connection cannot continue", null);
    }

    static ConnectionFailedException keepalive(InetSocketAddress remote, int probes, Duration interval) {
        return new ConnectionFailedException(Reason.KEEPALIVE, remote, "no answer from the peer to " + probes
                + " keepalive probe" + (probes == 1 ? "" : "s") + " (every " + interval.toMillis() + " ms); it is "
                + "gone or the path to it is down", null);
    }

    static ConnectionFailedException cm(InetSocketAddress remote, Reason reason, String event, Throwable cause) {
        return new ConnectionFailedException(reason, remote, event, cause);
    }

    private static String verbOf(Throwable cause) {
        return cause instanceof RdmaException r ? r.verb() : "rdma_connection";
    }

    private static String to(InetSocketAddress remote) {
        return remote == null ? "" : " to " + remote.getHostString() + ":" + remote.getPort();
    }
}
