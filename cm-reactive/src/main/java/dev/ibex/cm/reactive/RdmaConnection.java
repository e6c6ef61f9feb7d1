package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An established reliable RDMA connection (RC), as handed out by {@link RdmaClient#connect()} and to an
 * {@link RdmaServer}'s handler.
 *
 * <p><b>Threading.</b> Every signal of every {@code Mono}/{@code Flux} here is emitted on the connection's
 * {@link #loop() event loop}, which must never block: offload blocking work with {@code publishOn}
 * (and {@link Message#retain()} what crosses threads). Methods may be called from any thread.
 *
 * <p><b>Flow control.</b> {@link #receive()}'s demand is the receive credit: a receive is re-posted only when a
 * message is released, so an idle subscriber stops the sender (RNR) instead of buffering. {@link #send} asks its
 * publisher only for what fits the send queue. Nothing grows without bound.
 *
 * <p><b>Buffers.</b> See {@link Message} for the ownership rule: released after {@code onNext} unless retained.
 */
public interface RdmaConnection extends Disposable {

    /**
     * The messages the peer sends, in order, emitted on the loop; one subscriber. Completes when the connection
     * closes (after what was already received), fails when the connection fails. Cancelling releases what was
     * queued and every later message. Messages that arrive before the subscription wait for it (at most the
     * receive window, which also stops the sender); if the connection closes before anyone subscribed they are
     * released, so connections nobody reads cannot hold buffers. To miss nothing, subscribe on the loop: in
     * {@code handle(...)}, or in the {@code connect()} Mono's {@code onNext} ({@code flatMapMany}).
     *
     * @return the received messages (each lent as {@link Message} says); the error is the connection's
     * {@link dev.ibex.cm.endpoint.ConnectionFailedException}
     */
    Flux<Message> receive();

    /**
     * Sends each item of {@code messages} as one SEND: {@code byte[]}, {@link java.nio.ByteBuffer},
     * {@link java.lang.foreign.MemorySegment}, {@link CharSequence} (UTF-8), {@link Message} (consumed: released
     * after the copy), {@link ReleasablePayload} (copies itself, then released), {@link WithImmediate} or
     * {@link WithInvalidate}. Requests only what the send queue can take. Completes when all were sent and
     * acknowledged (their completions arrived); fails on the first failure.
     *
     * @param messages the payloads to send, one SEND each, in order
     * @return a Mono that completes once every message completed, or fails with the first failure: the operation's
     * {@link dev.ibex.cm.endpoint.WorkCompletionException}, a {@link dev.ibex.cm.endpoint.MessageTooLargeException} for
     * a
     * payload larger than the peer's receive buffers, an {@link IllegalStateException} when the connection is closed
     */
    Mono<Void> send(Publisher<?> messages);

    /**
     * RDMA WRITE of {@code data} (as for {@link #send}) to {@code target} at {@code targetOffset}.
     *
     * @param target       the peer's buffer, as its {@link RdmaExposure#remote()} described it
     * @param targetOffset the offset in {@code target} to write at, in bytes
     * @param data         the payload, of any type {@link #send} takes
     * @return a Mono that completes when the write completed, or fails as {@link #send} does (a key or range the peer
     * did not grant fails with the operation's {@link dev.ibex.cm.endpoint.WorkCompletionException})
     */
    Mono<Void> write(RemoteBuffer target, long targetOffset, Object data);

    /**
     * RDMA READ of {@code length} bytes from {@code source} at {@code sourceOffset}, into registered memory: the
     * {@link Message} follows the ownership rule (valid during {@code onNext}, or retain it).
     *
     * @param source       the peer's buffer, as its {@link RdmaExposure#remote()} described it
     * @param sourceOffset the offset in {@code source} to read from, in bytes
     * @param length       how many bytes to read
     * @return a Mono that emits the bytes read, or fails as {@link #write} does
     */
    Mono<Message> read(RemoteBuffer source, long sourceOffset, int length);

    /**
     * Atomic fetch-and-add on the 8 aligned bytes at {@code target + targetOffset}; emits the previous value.
     *
     * @param target       the peer's buffer, exposed with {@link RemoteAccess#ATOMIC}
     * @param targetOffset the offset in {@code target}; the 8 bytes there must be 8-byte aligned
     * @param delta        what to add (wrapping on overflow)
     * @return a Mono that emits the value before the addition, or fails as {@link #write} does
     */
    Mono<Long> fetchAdd(RemoteBuffer target, long targetOffset, long delta);

    /**
     * Atomic compare-and-swap; emits the previous value (the swap happened when it equals {@code expected}).
     *
     * @param target       the peer's buffer, exposed with {@link RemoteAccess#ATOMIC}
     * @param targetOffset the offset in {@code target}; the 8 bytes there must be 8-byte aligned
     * @param expected     the value to compare the 8 bytes with
     * @param desired      the value stored when they equal {@code expected}
     * @return a Mono that emits the value before the operation, or fails as {@link #write} does
     */
    Mono<Long> compareSwap(RemoteBuffer target, long targetOffset, long expected, long desired);

    /**
     * A registered buffer of this connection's pool, e.g. to {@link #expose} to the peer as an RDMA target. The
     * subscriber owns it and must {@link Buffer#release()} it.
     *
     * @return a Mono that emits the buffer, or fails with a {@link dev.ibex.cm.buffer.PoolExhaustedException} when the
     * pool has none free
     */
    Mono<Buffer> allocate();

    /**
     * Lets the peer reach all of {@code buffer} (of this connection's pool: {@link #allocate()}) with exactly
     * {@code rights}, over this connection only (a memory window bound to its QP, where the device has them); see
     * {@link #expose(Buffer, int, int, RemoteAccess...)}.
     *
     * @param buffer a buffer of this connection's pool
     * @param rights what the peer may do: read, write, atomics
     * @return a Mono that emits the exposure once the peer can use it, or fails as
     * {@link #expose(Buffer, int, int, RemoteAccess...)} does
     */
    Mono<RdmaExposure> expose(Buffer buffer, RemoteAccess... rights);

    /**
     * Lets the peer reach exactly {@code buffer[offset, offset + length)} with exactly {@code rights}: emits, once the
     * key works, the {@link RdmaExposure} whose {@link RdmaExposure#remote() descriptor} the application sends to the
     * peer. Nothing else of the pool is reachable: its buffers are registered for local access only. Disposing the
     * exposure, releasing the buffer or closing the connection takes the access back. Fails with
     * {@code IllegalArgumentException} for an empty or out-of-range slice or no rights, with {@code RdmaException}
     * ENOTSUP for atomics on a device without them.
     *
     * @param buffer a buffer of this connection's pool
     * @param offset the slice's first byte in {@code buffer}
     * @param length the slice's length in bytes, at least 1
     * @param rights what the peer may do: read, write, atomics (at least one)
     * @return a Mono that emits the exposure once the peer can use it
     */
    Mono<RdmaExposure> expose(Buffer buffer, int offset, int length, RemoteAccess... rights);

    /**
     * Lifecycle and path events (hot): ESTABLISHED first, then live events; lifecycle events are replayed to late
     * subscribers; completes after CLOSED.
     *
     * @return the connection's events
     */
    Flux<ConnectionEvent> events();

    /**
     * Loads an alternate path for automatic path migration and re-arms: completes when it is loaded
     * (ALTERNATE_PATH_LOADED); the QP migrates only once ARMED (PATH_ARMED), which takes the peer's mirrored path and
     * traffic. Fails fast with a {@link dev.ibex.cm.PathMigrationException} (ENOTSUP, with its reason) when the
     * device or port cannot migrate: rdma-core on RoCE/iWARP, a device without {@code AUTO_PATH_MIG}, a soft-roce
     * device with a single address.
     *
     * @param localAlternate  the local address of the alternate path (another port or device of this host)
     * @param remoteAlternate the peer's address on the alternate path
     * @return a Mono that completes once the alternate path is loaded
     */
    Mono<Void> alternatePath(InetSocketAddress localAlternate, InetSocketAddress remoteAlternate);

    /**
     * Forces a migration to the loaded alternate path; completes on PATH_MIGRATED, fails with a
     * {@link dev.ibex.cm.PathMigrationException} on PATH_MIG_ERROR or when the QP is not ARMED.
     *
     * @return a Mono that completes once the QP migrated
     */
    Mono<Void> migrate();

    /**
     * After a migration, loads the former primary path as the alternate again and re-arms; completes when loaded,
     * fails when the connection has not migrated.
     *
     * @return a Mono that completes once the former primary path is loaded as the alternate
     */
    Mono<Void> rearm();

    /**
     * The QP's migration state now: MIGRATED, REARM or ARMED ({@code null} once closed).
     *
     * @return the migration state, or {@code null}
     */
    dev.ibex.cm.spi.MigState pathMigrationState();

    /**
     * The path the QP uses now (local, remote, port), or {@code null} once closed.
     *
     * @return the primary path, or {@code null}
     */
    dev.ibex.cm.endpoint.RdmaPath primaryPath();

    /**
     * Completes when the connection is closed and everything is released.
     *
     * @return a Mono that completes when the connection is gone (it does not fail, whatever closed the connection)
     */
    Mono<Void> onDispose();

    /**
     * Disconnects; completes when closed. Outstanding work completes as flushed.
     *
     * @return a Mono that completes once closed
     */
    Mono<Void> disconnect();

    /**
     * What the peer sent with its connect (on an accepted connection) or with its accept (on a client); a copy.
     *
     * @return a copy of the private data as it arrived (the CM may pad it with zeros)
     */
    byte[] peerPrivateData();

    /**
     * The local end's address: this device's IP address and the RDMA CM port.
     *
     * @return the local address
     */
    InetSocketAddress localAddress();

    /**
     * The peer's address: its device's IP address and its RDMA CM port.
     *
     * @return the peer's address
     */
    InetSocketAddress remoteAddress();

    /**
     * Whether this side accepted the connection.
     *
     * @return {@code true} on a server's connection, {@code false} on a client's
     */
    boolean isPassive();

    /**
     * The event loop every signal of this connection is emitted on.
     *
     * @return the connection's loop
     */
    EventLoop loop();

    /**
     * The callback-level endpoint underneath (diagnostics and advanced use). Do not post operations on it
     * directly while reactive operations run: they share its send queue.
     *
     * @return the callback-level connection
     */
    Connection connection();
}
