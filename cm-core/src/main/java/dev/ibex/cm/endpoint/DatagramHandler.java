package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.AsyncEvent;
import java.net.InetSocketAddress;

/** Callbacks of a {@link Datagram} and its memberships, on its event loop; they must not block. */
public interface DatagramHandler {

    /** Bound: the UD QP is ready and receives are posted. */
    default void onBound(Datagram d) {}

    /**
     * A datagram arrived. Its payload starts after the 40-byte GRH ({@link Buffer#offset()}); the sender is
     * {@link Buffer#sourceQp()} / {@link Buffer#sourceGid()} ({@link Datagram#peerOf} makes a reply address). The
     * application owns the buffer until {@link Buffer#release()}; the default releases at once.
     */
    default void onMessage(Datagram d, Buffer message) {
        message.release();
    }

    /** A send posted with {@code attachment} completed. */
    default void onComplete(Datagram d, long attachment) {}

    /** A send failed, or was flushed because the endpoint closed. */
    default void onFailed(Datagram d, long attachment, RdmaException error) {}

    default void onWritabilityChanged(Datagram d, boolean writable) {}

    /** A {@link Datagram#resolve} found the remote UD service. */
    default void onResolved(Datagram d, UdPeer peer) {}

    /** A {@link Datagram#resolve} failed (typed {@link dev.ibex.cm.RdmaConnectException}: no listener, rejected …). */
    default void onResolveFailed(Datagram d, InetSocketAddress remote, Throwable error) {}

    /** A SIDR request (when listening): accept or reject it; the default rejects. */
    default void onRequest(Datagram d, DatagramRequest request) {
        request.reject(null);
    }

    /** A multicast join completed: {@link Membership#send} works, and receiving unless send-only. */
    default void onJoined(Datagram d, Membership m) {}

    /** A join failed, or a joined group was lost ({@code MULTICAST_ERROR}): join again if needed. */
    default void onMembershipError(Datagram d, Membership m, Throwable error) {}

    /** A membership was left (by the application, or because the endpoint closed). */
    default void onLeft(Datagram d, Membership m) {}

    /** A port or device event of the endpoint's device. */
    default void onDeviceEvent(Datagram d, AsyncEvent event) {}

    /** Binding failed or the endpoint cannot continue; {@link #onClosed} follows. */
    default void onError(Datagram d, Throwable error) {}

    default void onClosed(Datagram d) {}
}
