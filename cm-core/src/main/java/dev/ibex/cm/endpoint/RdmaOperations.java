package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import java.util.Set;

/**
 * The work a {@link Connection} posts to its queue pair: SENDs, RDMA WRITE and READ, atomics, and the binds that
 * expose its buffers to the peer. Every operation runs on the connection's loop thread, allocates nothing, is batched
 * during the loop's turn and posted at its end (or at
 * {@link #flush()}), and completes through {@link ConnectionHandler#onComplete} or {@code onFailed} with the caller's
 * {@code attachment}. SEND and WRITE consume their buffer (it returns to the pool when the operation completes); READ
 * and atomics fill theirs and hand it back with the completion. At most {@link Connection#writableSlots()} operations
 * fit; beyond that an operation is refused.
 *
 * <p>The contract of {@code Connection}'s data path, kept apart from its life cycle and queries (and from
 * {@link PathMigration}) so that each reads as one thing.
 */
public interface RdmaOperations {
    /**
     * Sends {@code length} bytes from the start of {@code buffer}; see {@link #send(Buffer, int, int, long)}.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param length the message's length in bytes
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    void send(Buffer buffer, int length, long attachment);

    /**
     * Sends {@code buffer[offset, offset+length)} as one message. Consumes the buffer (released when the send
     * completes). Loop thread; allocates nothing.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    void send(Buffer buffer, int offset, int length, long attachment);

    /**
     * Sends the buffers of {@code message}, in order, as one message of {@link BufferList#length()} bytes: the peer
     * receives it whole ({@link ConnectionHandler#onMessage(Connection, BufferList)}). Consumes the buffers (each
     * returns to the pool as its part completes) and leaves the list empty; one {@link ConnectionHandler#onComplete}
     * (or {@code onFailed}) with {@code attachment} reports the whole message. It takes one of
     * {@link Connection#writableSlots()}: its buffers go out as send-queue slots and the peer's credits allow, and SENDs posted
     * after it wait behind it (meanwhile the connection is not writable). Loop thread; allocates nothing once the
     * backlog has grown to its size.
     *
     * @param message the buffers of the message, consumed; the list is left empty
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws MessageTooLargeException when the message is longer than {@link Connection#maxMessageSize()}
     * @throws IllegalArgumentException for an empty list or a buffer of another pool
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    void send(BufferList message, long attachment);

    /**
     * {@link #send(BufferList, long)} with 32 bits of immediate data (delivered with the message).
     *
     * @param message the buffers of the message, consumed; the list is left empty
     * @param immData the immediate data, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    void sendWithImm(BufferList message, int immData, long attachment);

    /**
     * Sends {@code buffer[offset, offset+length)} with 32 bits of immediate data (delivered with the message).
     * Consumes the buffer. Some zero-length or reserved immediate values are Ibex's own control messages on
     * connections with credits, rendezvous or large messages, and are refused. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param immData the immediate data, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the message would read as one of Ibex's control messages
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    void sendWithImm(Buffer buffer, int offset, int length, int immData, long attachment);

    /**
     * RDMA WRITE of {@code buffer[offset, offset+length)} to {@code target} at {@code targetOffset}; consumes it.
     * The peer is not told. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the data starts in the buffer
     * @param length how many bytes to write
     * @param target memory the peer exposed with write rights
     * @param targetOffset where to write, in bytes from the start of {@code target}
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code target} or the buffer
     */
    void write(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset, long attachment);

    /**
     * RDMA WRITE with immediate data: consumes a receive (and a credit) at the peer, which sees
     * {@code onRemoteWrite}. Consumes the buffer. Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the data starts in the buffer
     * @param length how many bytes to write
     * @param target memory the peer exposed with write rights
     * @param targetOffset where to write, in bytes from the start of {@code target}
     * @param immData the immediate data the peer receives, in host order
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code target} or the buffer
     */
    void writeWithImm(Buffer buffer, int offset, int length, RemoteBuffer target, long targetOffset,
            int immData, long attachment);

    /**
     * RDMA READ of {@code length} bytes from {@code source} into {@code buffer[offset…]}, handed back on completion.
     * Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, lent until the read completes
     * @param offset where the data lands in the buffer
     * @param length how many bytes to read
     * @param source memory the peer exposed with read rights
     * @param sourceOffset where to read, in bytes from the start of {@code source}
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     * @throws IllegalArgumentException when the range lies outside {@code source} or the buffer
     */
    void read(Buffer buffer, int offset, int length, RemoteBuffer source, long sourceOffset, long attachment);

    /**
     * Atomic compare-and-swap of the 8 aligned bytes at {@code target + targetOffset}; the previous value lands in
     * {@code result[offset, offset+8)} (native byte order). Loop thread.
     *
     * @param result a held buffer of this connection's pool, lent until the operation completes
     * @param offset where the previous value lands in {@code result}
     * @param target memory the peer exposed with atomic rights
     * @param targetOffset where the 8 bytes are, in bytes from the start of {@code target} (8-byte aligned address)
     * @param expected the value compared with the remote one
     * @param desired the value written when they are equal
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    void compareAndSwap(Buffer result, int offset, RemoteBuffer target, long targetOffset, long expected,
            long desired, long attachment);

    /**
     * Atomic fetch-and-add; the previous value lands in {@code result[offset, offset+8)}. Loop thread.
     *
     * @param result a held buffer of this connection's pool, lent until the operation completes
     * @param offset where the previous value lands in {@code result}
     * @param target memory the peer exposed with atomic rights
     * @param targetOffset where the 8 bytes are, in bytes from the start of {@code target} (8-byte aligned address)
     * @param delta what to add to the remote value
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    void fetchAndAdd(Buffer result, int offset, RemoteBuffer target, long targetOffset, long delta,
            long attachment);

    /**
     * SEND that also invalidates {@code rkey}, a memory window the peer exposed to this side: the exposure ends at the
     * peer as the message arrives (the peer sees {@link Buffer#hasInvalidatedRkey()}). Consumes the buffer.
     * Loop thread.
     *
     * @param buffer a held buffer of this connection's pool, consumed
     * @param offset where the message starts in the buffer
     * @param length the message's length in bytes
     * @param rkey the rkey of the peer's exposure to end
     * @param attachment the caller's value, handed back with the operation's {@code onComplete} or {@code onFailed}
     */
    void sendWithInvalidate(Buffer buffer, int offset, int length, int rkey, long attachment);

    /** Posts what this turn batched now instead of at its end (loop thread). */
    void flush();

    /**
     * Lets the peer reach {@code buffer[offset, offset + length)} with {@code rights} over this connection, in the
     * best {@link Exposure.Mode} the device offers; see {@link #expose(Buffer, int, int, Set, Exposure.Mode, long)}.
     *
     * @param buffer a held buffer of this connection's pool
     * @param offset where the exposed range starts in the buffer
     * @param length the range's length in bytes, positive
     * @param rights what the peer may do there, at least one
     * @param attachment the caller's value, handed back with the bind's {@code onComplete} or {@code onFailed}
     * @return the exposure, usable once its bind completes
     */
    Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, long attachment);

    /**
     * Lets the peer reach exactly {@code buffer[offset, offset + length)} with exactly {@code rights}, through this
     * connection only where the device has memory windows. The exposure is usable once
     * {@link ConnectionHandler#onComplete} reports {@link Operation#BIND_MW} with {@code attachment} (or
     * {@code onFailed}); then send {@link Exposure#remote()} to the peer. It ends when revoked, when the buffer is
     * released (which returns it to the pool only after the key is dead), when the peer invalidates it, or when the
     * connection closes: {@link ConnectionHandler#onExposureEnded}. Loop thread; the buffer must be held.
     *
     * @param buffer a held buffer of this connection's pool
     * @param offset where the exposed range starts in the buffer
     * @param length the range's length in bytes, positive
     * @param rights what the peer may do there, at least one
     * @param mode how the exposure is made: a memory window, a region of its own, or the best the device offers
     * @param attachment the caller's value, handed back with the bind's {@code onComplete} or {@code onFailed}
     * @return the exposure, usable once its bind completes
     * @throws IllegalArgumentException for an empty range, one outside the buffer, no rights, or a buffer of another
     *     pool
     * @throws RdmaException ENOTSUP when the device cannot do {@code mode} (or atomics, when asked)
     * @throws IllegalStateException when not established, off the loop, or the send queue is full
     */
    Exposure expose(Buffer buffer, int offset, int length, Set<RemoteAccess> rights, Exposure.Mode mode,
            long attachment);
}
