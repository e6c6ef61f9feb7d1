package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaConnectException.Reason;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CmEvent;
import java.net.InetSocketAddress;
import java.time.Duration;

/** Turns the input that ended an attempt into its typed exception. */
final class Failures {
    private Failures() {}

    static Reason reason(Input in) {
        return switch (in) {
            case ADDR_ERROR -> Reason.ADDR_ERROR;
            case ROUTE_ERROR -> Reason.ROUTE_ERROR;
            case UNREACHABLE -> Reason.UNREACHABLE;
            case REJECTED -> Reason.REJECTED;
            case DISCONNECTED -> Reason.DISCONNECTED;
            case DEVICE_REMOVAL -> Reason.DEVICE_REMOVAL;
            case ADDR_CHANGE -> Reason.ADDR_CHANGE;
            case TIMEOUT -> Reason.TIMEOUT;
            case CLOSE -> Reason.CLOSED;
            case MULTICAST_ERROR -> Reason.MULTICAST_ERROR;
            default -> Reason.CONNECT_ERROR;
        };
    }

    static RdmaConnectException of(Input in, CmEvent e, InetSocketAddress remote, boolean datagram, Throwable cause) {
        return new RdmaConnectException(reason(in), e == null ? 0 : e.status(), e == null ? null : e.privateData(),
                remote, datagram, cause == null ? null : cause.getMessage(), cause);
    }

    /** The deadline passed in {@code state}: say what was still awaited. */
    static RdmaConnectException timeout(ConnectionState state, InetSocketAddress remote, Duration timeout) {
        String waiting = switch (state) {
            case IDLE -> "the connect had not started: it waited behind the loop's other connects "
                    + "(LoopOptions.maxConcurrentConnects)";
            case ADDR_RESOLVING -> "the address was still being resolved";
            case ROUTE_RESOLVING -> "the route was still being resolved";
            case CONNECTING -> remote != null && !remote.isUnresolved()
                    ? "nothing answered the connection request at that address (no host, a host without RDMA, or a "
                    + "path that drops the CM's messages)" : "the handshake did not complete";
            case REQUESTED -> "the application did not accept or reject the request";
            default -> "the connection was " + state;
        };
        return new RdmaConnectException(Reason.TIMEOUT, 0, null, remote, false, "connect timeout of "
                + timeout.toMillis() + " ms: " + waiting);
    }

    /** A provider refusal while performing an action for {@code in}, as the attempt's failure. */
    static RdmaConnectException refused(Reason reason, RuntimeException cause, InetSocketAddress remote,
            boolean datagram) {
        int status = cause instanceof RdmaException r ? -r.errnoValue() : 0;
        return new RdmaConnectException(reason, status, null, remote, datagram, cause.getMessage(), cause);
    }
}
