package dev.ibex.cm;

import java.net.InetSocketAddress;

/**
 * A connection attempt (or a SIDR resolution, or a multicast join) that ended without success, with the reason as
 * the CM reported it: the event, its status (an errno, an IB CM reject reason or a SIDR status) and the peer's
 * reject private data.
 */
public final class RdmaConnectException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** IB CM reject reason: the peer has no resources for the connection (e.g. too many half-open ones). */
    public static final int REJECT_NO_RESOURCES = 3;
    /** IB CM reject reason: no listener for the service ID (port) on the target device. */
    public static final int REJECT_INVALID_SERVICE_ID = 8;
    /** IB CM reject reason: the peer application (or its CM) rejected. */
    public static final int REJECT_CONSUMER = 28;
    /** SIDR status: no listener for the service ID. */
    public static final int SIDR_UNSUPPORTED = 1;
    /** SIDR status: the peer rejected. */
    public static final int SIDR_REJECT = 2;

    /** Why the attempt ended. */
    public enum Reason {
        /** Address resolution failed ({@code ADDR_ERROR}). */
        ADDR_ERROR("rdma_resolve_addr"),
        /** Route resolution failed ({@code ROUTE_ERROR}). */
        ROUTE_ERROR("rdma_resolve_route"),
        /** The peer did not answer ({@code UNREACHABLE}: CM retries exhausted, or a SIDR status). */
        UNREACHABLE("rdma_connect"),
        /** The peer rejected ({@code REJECTED}); see {@link #status()} and {@link #privateData()}. */
        REJECTED("rdma_connect"),
        /** Establishing failed ({@code CONNECT_ERROR}). */
        CONNECT_ERROR("rdma_connect"),
        /** No outcome within the endpoint's deadline. */
        TIMEOUT("rdma_connect"),
        /** The local device went away ({@code DEVICE_REMOVAL}). */
        DEVICE_REMOVAL("rdma_connect"),
        /** The resolved address moved to another hardware address ({@code ADDR_CHANGE}); resolve again. */
        ADDR_CHANGE("rdma_connect"),
        /** The peer disconnected before the connection was established ({@code DISCONNECTED}). */
        DISCONNECTED("rdma_connect"),
        /** The application closed the endpoint before the outcome. */
        CLOSED("rdma_connect"),
        /** A multicast join failed or a joined group was lost ({@code MULTICAST_ERROR}). */
        MULTICAST_ERROR("rdma_join_multicast");

        private final String verb;

        Reason(String verb) {
            this.verb = verb;
        }
    }

    /** Why the attempt ended. */
    private final Reason reason;
    /** The CM event's status, as given. */
    private final int status;
    /** The peer's private data, never {@code null}. */
    private final byte[] privateData;
    /** The peer or group, or {@code null}. */
    private final InetSocketAddress remote;
    /** Whether the exchange was UD (SIDR), where statuses are SIDR statuses. */
    private final boolean datagram;

    /**
     * An attempt that ended for {@code reason}; the message says why in words (reject reasons, SIDR statuses and
     * Ibex's own {@link RejectReason} decoded).
     *
     * @param reason why the attempt ended
     * @param status the event's status (negative errno, reject reason or SIDR status; 0 when none)
     * @param privateData the peer's private data (reject data), copied
     * @param remote the peer or group, if known
     * @param datagram whether this was a UD (SIDR) exchange, where statuses are SIDR statuses
     * @param detail more context appended to the message, or {@code null}
     */
    public RdmaConnectException(Reason reason, int status, byte[] privateData, InetSocketAddress remote,
            boolean datagram, String detail) {
        this(reason, status, privateData, remote, datagram, detail, null);
    }

    /**
     * An attempt that ended for {@code reason}, caused by {@code cause} (a provider refusal during the attempt).
     *
     * @param reason why the attempt ended
     * @param status the event's status (negative errno, reject reason or SIDR status; 0 when none)
     * @param privateData the peer's private data (reject data), copied; {@code null} for none
     * @param remote the peer or group, if known
     * @param datagram whether this was a UD (SIDR) exchange, where statuses are SIDR statuses
     * @param detail more context appended to the message, or {@code null}
     * @param cause the underlying failure, or {@code null}
     */
    public RdmaConnectException(Reason reason, int status, byte[] privateData, InetSocketAddress remote,
            boolean datagram, String detail, Throwable cause) {
        super(reason.verb, status < 0 ? -status : (reason == Reason.TIMEOUT ? Errno.ETIMEDOUT.number() : 0),
                describe(reason, status, privateData, remote, datagram, detail), cause);
        this.reason = reason;
        this.status = status;
        this.privateData = privateData == null ? new byte[0] : privateData.clone();
        this.remote = remote;
        this.datagram = datagram;
    }

    private static String describe(Reason r, int status, byte[] privateData, InetSocketAddress remote, boolean datagram,
            String detail) {
        // an unresolved address (a host name that did not resolve) has no InetAddress: use its name
        String to = remote == null ? "" : " (" + (remote.getAddress() == null ? remote.getHostString()
                : remote.getAddress().getHostAddress()) + ":" + remote.getPort() + ")";
        String what = switch (r) {
            case REJECTED -> switch (status) {
                case REJECT_INVALID_SERVICE_ID -> "rejected: nobody listens on that port (IB CM reject reason 8, "
                        + "invalid service ID)";
                case REJECT_CONSUMER -> consumerReject(privateData);
                case REJECT_NO_RESOURCES -> "rejected: the peer has no resources for another connection (IB CM "
                        + "reject reason 3)" + ibexReason(privateData);
                default -> "rejected (IB CM reject reason " + status + ")" + ibexReason(privateData);
            };
            case UNREACHABLE -> datagram && status == SIDR_UNSUPPORTED ? "no UD service listens on that port "
                    + "(SIDR status 1)" : datagram && status == SIDR_REJECT ? "the UD service rejected the request "
                    + "(SIDR status 2)" : "the peer did not answer the connection request (CM retries exhausted)";
            case ADDR_ERROR -> "the address could not be resolved (no route, no neighbour, or no RDMA device on "
                    + "that path)";
            case ROUTE_ERROR -> "no route to the peer could be resolved";
            case CONNECT_ERROR -> "establishing the connection failed";
            case TIMEOUT -> "no outcome within the deadline";
            case DEVICE_REMOVAL -> "the RDMA device was removed";
            case ADDR_CHANGE -> "the local address changed its hardware address (e.g. bonding failover); "
                    + "connect again";
            case DISCONNECTED -> "the peer disconnected before the connection was established";
            case CLOSED -> "the endpoint was closed before the outcome";
            case MULTICAST_ERROR -> isGroupLimit(r, status) ? "the multicast group could not be joined: the device's"
                    + " group limit is reached (" + Errno.of(status).describe() + "; max_mcast_grp or max_mcast_qp_attach"
                    + " of DeviceAttributes, or an OS limit); leave groups first"
                    : "the multicast group could not be joined or was lost";
        };
        return what + to + (detail == null || detail.isEmpty() ? "" : "; " + detail);
    }

    private static String ibexReason(byte[] privateData) {
        RejectReason ibex = RejectReason.of(privateData);
        if (ibex == null) {
            return "";
        }
        String d = RejectReason.detail(privateData);
        return ": " + ibex.description() + (d.isEmpty() ? "" : " (" + d + ")");
    }

    private static String consumerReject(byte[] privateData) {
        RejectReason ibex = RejectReason.of(privateData);
        if (ibex != null) {
            String d = RejectReason.detail(privateData);
            return "rejected by the peer (reason 28): " + ibex.description() + (d.isEmpty() ? "" : " (" + d + ")");
        }
        boolean none = privateData == null;
        for (int i = 0; !none && i < privateData.length && privateData[i] == 0; i++) {
            none = i == privateData.length - 1;
        }
        return none || privateData.length == 0 ? "rejected by the peer (reason 28, consumer reject) with no private "
                + "data to say why" : "rejected by the peer (reason 28, consumer reject); its private data says why";
    }

    /**
     * Why an Ibex server rejected on its own (its accept policy failed, nobody answered, no resources …), or
     * {@code null} when the peer's application rejected (or the peer is not Ibex).
     *
     * @return the reason decoded from the reject's private data, or {@code null}
     */
    public RejectReason rejectReason() {
        return reason == Reason.REJECTED ? RejectReason.of(privateData) : null;
    }

    /** {@return why the attempt ended} */
    public Reason reason() {
        return reason;
    }

    /** {@return the CM event's status: a negative errno, an IB CM reject reason (REJECTED) or a SIDR status} */
    public int status() {
        return status;
    }

    /** {@return the peer's private data (e.g. what it passed to reject), a copy; empty when none} */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the peer (or group) the attempt was for, or {@code null}} */
    public InetSocketAddress remote() {
        return remote;
    }

    /** {@return whether the peer application rejected (reject reason 28, or SIDR reject)} */
    public boolean isConsumerReject() {
        return (reason == Reason.REJECTED && status == REJECT_CONSUMER)
                || (datagram && reason == Reason.UNREACHABLE && status == SIDR_REJECT);
    }

    /**
     * A multicast join failed because a limit was reached: the device's groups ({@code max_mcast_grp}) or QPs per
     * group ({@code max_mcast_qp_attach}) — ENOMEM, as rxe and soft-roce report it — or the operating system's
     * (soft-roce holds a socket per group: EMFILE/ENFILE when file descriptors run out, ENOBUFS when the kernel's
     * membership limit is hit). Leaving groups makes room; retrying at once does not.
     *
     * @return whether this is a failed join for lack of group or membership room
     */
    public boolean isGroupLimit() {
        return isGroupLimit(reason, status);
    }

    private static boolean isGroupLimit(Reason reason, int status) {
        return reason == Reason.MULTICAST_ERROR && (status == -Errno.ENOMEM.number()
                || status == -Errno.ENOBUFS.number() || status == -Errno.EMFILE.number()
                || status == -Errno.ENFILE.number());
    }

    /** {@return whether nobody listens on the target port (reject reason 8, or SIDR status 1)} */
    public boolean isNoListener() {
        return (reason == Reason.REJECTED && status == REJECT_INVALID_SERVICE_ID)
                || (datagram && reason == Reason.UNREACHABLE && status == SIDR_UNSUPPORTED);
    }
}
