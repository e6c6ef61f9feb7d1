package dev.ibex.cm.reactive;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * What one datagram endpoint or multicast membership reports for its whole life: the handle
 * {@link RdmaMetricsRecorder#datagramMetrics} returns when the endpoint is bound, so that recording a datagram is a
 * call on a handle whose meters were looked up once (nothing per datagram but the record itself). Every method has
 * a no-op default; calls happen on the endpoint's event loop and must not block.
 */
public interface RdmaDatagramMetrics {

    /** Records nothing. */
    RdmaDatagramMetrics NONE = new RdmaDatagramMetrics() {};

    /**
     * Where an endpoint runs: the bounded facts its meters may be tagged with (never a peer).
     *
     * @param provider the provider's name ({@code soft-roce}, {@code rdma-core})
     * @param device the RDMA device the endpoint's UD QP lives on, {@code "unknown"} when binding failed first
     * @param loop the event loop's name
     * @param group the multicast group, {@code null} for a plain datagram endpoint
     * @param sendOnly whether the membership is send-only (always {@code false} without a group)
     */
    record Endpoint(String provider, String device, String loop, InetSocketAddress group, boolean sendOnly) {
        /** Checks the names are there. */
        public Endpoint {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(loop, "loop");
        }
    }

    /**
     * A datagram was delivered to the application.
     *
     * @param bytes its payload, without the GRH
     */
    default void recordDataReceived(long bytes) {}

    /**
     * A datagram was posted.
     *
     * @param bytes its payload
     */
    default void recordDataSent(long bytes) {}

    /** A send failed (not a flush), or the endpoint or membership broke. */
    default void incrementErrorsCount() {}

    /**
     * A multicast join ended (memberships only, once): {@code status} is {@code "SUCCESS"}, the
     * {@link dev.ibex.cm.RdmaConnectException.Reason} name ({@code MULTICAST_ERROR}, {@code TIMEOUT} …),
     * {@code "ERROR"} or {@code "CANCELLED"}.
     *
     * @param time from {@code join()} to the outcome
     * @param status the outcome
     */
    default void recordJoinTime(Duration time, String status) {}

    /** The endpoint closed, or the membership left (once, after every other call). */
    default void closed() {}
}
