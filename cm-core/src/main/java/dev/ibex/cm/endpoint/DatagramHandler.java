package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.AsyncEvent;
import java.net.InetSocketAddress;

/** Callbacks of a {@link Datagram} and its memberships, on its event loop; they must not block. */
public interface DatagramHandler {

    /**
     * Bound: the UD QP is ready and receives are posted.
     *
     * @param d the datagram endpoint
     */
    default void onBound(Datagram d) {}

    /**
     * A datagram arrived. Its payload starts after the 40-byte GRH ({@link Buffer#offset()}); the sender is
     * {@link Buffer#sourceQp()} / {@link Buffer#sourceGid()} ({@link Datagram#peerOf} makes a reply address). The
     * application owns the buffer until {@link Buffer#release()}; the default releases at once.
     *
     * @param d the datagram endpoint
     * @param message the received buffer, GRH first, held by the application until released
     */
    default void onMessage(Datagram d, Buffer message) {
        message.release();
    }

    /**
     * A send posted with {@code attachment} completed.
     *
     * @param d the datagram endpoint
     * @param attachment the value the send was posted with
     */
    default void onComplete(Datagram d, long attachment) {}

    /**
     * A send failed, or was flushed because the endpoint closed.
     *
     * @param d the datagram endpoint
     * @param attachment the value the send was posted with
     * @param error why: a work completion's status, or a flush
     */
    default void onFailed(Datagram d, long attachment, RdmaException error) {}

    /**
     * The send queue filled up ({@code false}) or has room again ({@code true}): see {@link Datagram#writableSlots()}.
     *
     * @param d the datagram endpoint
     * @param writable whether sends may be posted again
     */
    default void onWritabilityChanged(Datagram d, boolean writable) {}

    /**
     * A {@link Datagram#resolve} found the remote UD service.
     *
     * @param d the datagram endpoint
     * @param peer the remote UD service's address handle, QP number and Q_Key
     */
    default void onResolved(Datagram d, UdPeer peer) {}

    /**
     * A {@link Datagram#resolve} failed (typed {@link dev.ibex.cm.RdmaConnectException}: no listener, rejected …).
     *
     * @param d the datagram endpoint
     * @param remote the address that was resolved
     * @param error why
     */
    default void onResolveFailed(Datagram d, InetSocketAddress remote, Throwable error) {}

    /**
     * A SIDR request (when listening): accept or reject it; the default rejects.
     *
     * @param d the datagram endpoint
     * @param request the request to answer
     */
    default void onRequest(Datagram d, DatagramRequest request) {
        request.reject(null);
    }

    /**
     * A multicast join completed: {@link Membership#send} works, and receiving unless send-only.
     *
     * @param d the datagram endpoint
     * @param m the membership that joined
     */
    default void onJoined(Datagram d, Membership m) {}

    /**
     * A join failed, or a joined group was lost ({@code MULTICAST_ERROR}): join again if needed.
     *
     * @param d the datagram endpoint
     * @param m the membership that failed
     * @param error why, typically an {@link dev.ibex.cm.RdmaConnectException} MULTICAST_ERROR
     */
    default void onMembershipError(Datagram d, Membership m, Throwable error) {}

    /**
     * A membership was left (by the application, or because the endpoint closed).
     *
     * @param d the datagram endpoint
     * @param m the membership that was left
     */
    default void onLeft(Datagram d, Membership m) {}

    /**
     * A port or device event of the endpoint's device.
     *
     * @param d the datagram endpoint
     * @param event the device's async event
     */
    default void onDeviceEvent(Datagram d, AsyncEvent event) {}

    /**
     * Binding failed or the endpoint cannot continue; {@link #onClosed} follows.
     *
     * @param d the datagram endpoint
     * @param error why
     */
    default void onError(Datagram d, Throwable error) {}

    /**
     * Everything is released; the endpoint is closed. Exactly once, last.
     *
     * @param d the datagram endpoint
     */
    default void onClosed(Datagram d) {}
}
