package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.AsyncEvent;

/**
 * Callbacks of a {@link Connection}, all on its event loop thread; they must not block. Guarantees: every posted
 * operation gets exactly one {@link #onComplete} or {@link #onFailed}, in posting order, before
 * {@link #onClosed}; {@link #onEstablished}, {@link #onDisconnected} and {@link #onError} happen at most once;
 * {@link #onClosed} exactly once and last. What a callback throws is logged and reported to the loop's uncaught
 * handler; the connection carries on.
 */
public interface ConnectionHandler {

    /**
     * Connected; {@link Connection#peerPrivateData()} holds what the peer sent with accept (or connect).
     *
     * @param c the connection
     */
    default void onEstablished(Connection c) {}

    /**
     * A message arrived in {@code message} ({@link Buffer#offset()}/{@link Buffer#length()} frame it). The
     * application owns the buffer until it calls {@link Buffer#release()} (from any thread); only then is a receive
     * re-posted, so holding messages holds back the peer. The default releases at once.
     *
     * @param c the connection
     * @param message the received buffer, held by the application until released
     */
    default void onMessage(Connection c, Buffer message) {
        message.release();
    }

    /**
     * A message of several buffers arrived (the peer sent more than one buffer holds; see
     * {@link Connection#send(dev.ibex.cm.buffer.BufferList, long)}). The application owns the buffers until it calls
     * {@link dev.ibex.cm.buffer.BufferList#release()} (any thread); the whole message holds one receive credit until
     * then. The default releases at once.
     *
     * @param c the connection
     * @param message the message's buffers, in order, held by the application until released
     */
    default void onMessage(Connection c, dev.ibex.cm.buffer.BufferList message) {
        message.release();
    }

    /**
     * The peer's RDMA WRITE with immediate data landed ({@code length} bytes in the target buffer).
     *
     * @param c the connection
     * @param immData the immediate data the peer sent, in host order
     * @param length how many bytes the WRITE put into the exposed memory
     */
    default void onRemoteWrite(Connection c, int immData, int length) {}

    /**
     * An operation posted with {@code attachment} completed successfully.
     *
     * @param c the connection
     * @param op which operation completed
     * @param attachment the value it was posted with
     */
    default void onComplete(Connection c, Operation op, long attachment) {}

    /**
     * An operation posted with {@code attachment} failed: a {@link WorkCompletionException} (its status; a flush
     * when the connection went down) or a {@link dev.ibex.cm.spi.PostException} when the QP refused it.
     *
     * @param c the connection
     * @param op which operation failed
     * @param attachment the value it was posted with
     * @param error why
     */
    default void onFailed(Connection c, Operation op, long attachment, RdmaException error) {}

    /**
     * An exposure ({@link Connection#expose}) ended — revoked, its buffer released, invalidated by the peer, or the
     * connection closing ({@link Exposure#end()} says which): its key no longer reaches the memory. Once per exposure
     * that was reported bound ({@code onComplete(BIND_MW)}), before {@link #onClosed}.
     *
     * @param c the connection
     * @param exposure the exposure that ended
     */
    default void onExposureEnded(Connection c, Exposure exposure) {}

    /**
     * The send queue filled up ({@code false}) or has room again ({@code true}): see
     * {@link Connection#writableSlots()}.
     *
     * @param c the connection
     * @param writable whether operations may be posted again
     */
    default void onWritabilityChanged(Connection c, boolean writable) {}

    /**
     * The peer disconnected; the connection closes once its outstanding work has flushed.
     *
     * @param c the connection
     */
    default void onDisconnected(Connection c) {}

    /**
     * Alternate path loaded, migrated, or failed (APM).
     *
     * @param c the connection
     * @param event what happened to the paths
     */
    default void onPathEvent(Connection c, PathEvent event) {}

    /**
     * The local address moved to another hardware address (bonding failover): a hint, the connection stays.
     *
     * @param c the connection
     */
    default void onAddressChange(Connection c) {}

    /**
     * A port or device event of the connection's device (PORT_ERR, PORT_ACTIVE, LID/GID/PKEY change …).
     *
     * @param c the connection
     * @param event the device's async event
     */
    default void onDeviceEvent(Connection c, AsyncEvent event) {}

    /**
     * The connection failed: before ESTABLISHED with an {@link dev.ibex.cm.RdmaConnectException} (typed reason),
     * afterwards with the fatal error ({@link WorkCompletionException}, {@link dev.ibex.cm.RdmaException}).
     * {@link #onClosed} follows.
     *
     * @param c the connection
     * @param error why the connection failed
     */
    default void onError(Connection c, Throwable error) {}

    /**
     * Everything is released; the connection is {@link ConnectionState#CLOSED}.
     *
     * @param c the connection
     */
    default void onClosed(Connection c) {}
}
