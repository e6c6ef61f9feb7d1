package dev.ibex.cm.reactive;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.LongSupplier;
import reactor.util.context.ContextView;

/**
 * Where servers and clients report what metrics systems want (the shape of reactor-netty's
 * {@code ChannelMetricsRecorder}, without a metrics dependency: adapt it to Micrometer or anything else). Every
 * method has a no-op default; calls happen on event loops and must not block. Installed with
 * {@code metrics(recorder)}, or with {@code metrics(true)}, which takes the recorder an
 * {@link RdmaMetricsRecorderProvider} on the module or class path makes (the {@code ibex-micrometer} artifact has
 * one); nothing is recorded (and nothing is computed for it) without one. {@link RdmaDatagram} and
 * {@link RdmaMulticast} use the same recorder (components {@code "datagram"}, {@code "multicast"}) through the
 * per-endpoint handle {@link #datagramMetrics}.
 */
public interface RdmaMetricsRecorder {

    /**
     * A connect attempt ended.
     *
     * @param status {@code "SUCCESS"}, or the {@link dev.ibex.cm.RdmaConnectException.Reason} name, or
     *     {@code "CANCELLED"}
     * @param remote the peer the client connected (or tried to connect) to
     * @param time   from the attempt's start (address resolution) to its outcome
     */
    default void recordConnectTime(InetSocketAddress remote, Duration time, String status) {}

    /**
     * A server answered a connection request; {@code status} is {@code "ACCEPTED"} or {@code "REJECTED"}.
     *
     * @param remote       the client that asked
     * @param decisionTime from the request's arrival to the accept policy's answer (about 0 without a policy)
     * @param status       {@code "ACCEPTED"} or {@code "REJECTED"}
     */
    default void recordAcceptDecision(InetSocketAddress remote, Duration decisionTime, String status) {}

    /**
     * A message was delivered to the application.
     *
     * @param remote the connection's peer
     * @param bytes  the message's payload length
     */
    default void recordDataReceived(InetSocketAddress remote, long bytes) {}

    /**
     * A message (SEND) or RDMA WRITE was posted.
     *
     * @param remote the connection's peer
     * @param bytes  the payload length posted
     */
    default void recordDataSent(InetSocketAddress remote, long bytes) {}

    /**
     * An operation failed or the connection broke.
     *
     * @param remote the connection's peer
     */
    default void incrementErrorsCount(InetSocketAddress remote) {}

    /**
     * A connection was established (a server's accepted one, or a client's): a gauge of the connections open now
     * goes up. Loop thread; followed by exactly one {@link #recordConnectionClosed} for the same connection.
     *
     * @param remote the peer
     */
    default void recordConnectionOpened(InetSocketAddress remote) {}

    /**
     * A connection that {@link #recordConnectionOpened} reported closed (everything released). Loop thread.
     *
     * @param remote the peer
     */
    default void recordConnectionClosed(InetSocketAddress remote) {}

    /**
     * A datagram endpoint bound, or a multicast membership's endpoint bound (or failed to): the handle it records
     * into for its life (an {@link RdmaDatagram} or {@link RdmaMulticast} with {@code metrics(...)}). Called once per
     * endpoint on its loop; the handle's {@link RdmaDatagramMetrics#closed()} ends it.
     *
     * @param endpoint where it runs (bounded tags)
     * @param drops what the endpoint's {@code drops()} says now (read it lazily, any thread; it never decreases)
     * @return the handle, {@code null} or {@link RdmaDatagramMetrics#NONE} to record nothing
     */
    default RdmaDatagramMetrics datagramMetrics(RdmaDatagramMetrics.Endpoint endpoint, LongSupplier drops) {
        return null;
    }

    /**
     * A client's connect attempt starts (on the subscriber's thread): an observation for tracing whose parent is the
     * one in {@code context} (the {@code connect()} subscriber's), ended with the attempt's outcome.
     *
     * @param remote the peer
     * @param provider the provider's name (a bounded tag)
     * @param context the subscriber's context
     * @return the observation, or {@code null} (the default) to observe nothing
     */
    default RdmaObservation observeConnect(InetSocketAddress remote, String provider, ContextView context) {
        return null;
    }

    /**
     * A server received a connection request (listener's loop): an observation from the request to the connection
     * being established or refused, whose parent is the one in {@code context} (the {@code bind()} subscriber's);
     * the connection's handler runs under it.
     *
     * @param remote the peer that asks
     * @param provider the provider's name (a bounded tag)
     * @param context the bind subscriber's context
     * @return the observation, or {@code null} (the default) to observe nothing
     */
    default RdmaObservation observeConnection(InetSocketAddress remote, String provider, ContextView context) {
        return null;
    }

    /**
     * A server bound, or a client connects, on {@code group}: a recorder may register the group's counters
     * ({@link dev.ibex.cm.loop.EventLoopGroup#counters()}: the provider's figures and the loops' credit stalls), read
     * lazily. Called on every bind and connect attempt, on the subscriber's thread (which may be a loop: do not
     * block): register once per group, and let go of them when
     * {@link dev.ibex.cm.loop.EventLoopGroup#terminationFuture()} completes.
     *
     * @param group the event loop group the server or client runs on
     */
    default void registerCounters(dev.ibex.cm.loop.EventLoopGroup group) {}
}
