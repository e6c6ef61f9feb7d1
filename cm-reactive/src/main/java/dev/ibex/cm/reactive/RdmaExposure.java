package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Exposure;
import java.util.Set;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Bytes of a buffer the peer of one {@link RdmaConnection} may reach with RDMA, with exactly the rights asked for
 * ({@link RdmaConnection#expose}). Send {@link #remote()} to the peer (16 bytes with {@link RemoteBuffer#encode}, or
 * {@link RemoteBuffer#toBytes()}); {@link #dispose()} takes the access back. It also ends when the buffer is released
 * (the buffer returns to its pool only once no peer can reach it), when the peer invalidates it
 * ({@link WithInvalidate}) or when the connection closes; {@link #onDispose()} completes then.
 *
 * <p>Threading: any thread; {@link #onDispose()} completes on the connection's loop.
 */
public interface RdmaExposure extends Disposable {

    /**
     * What the peer needs: address, rkey and length of exactly the exposed bytes.
     *
     * @return the remote descriptor to send to the peer
     */
    RemoteBuffer remote();

    /**
     * The buffer the bytes belong to (still the caller's: release it when done, which also ends the exposure).
     *
     * @return the buffer, owned by the caller
     */
    Buffer buffer();

    /**
     * Where the exposed bytes start in {@link #buffer()}.
     *
     * @return the offset in bytes
     */
    int offset();

    /**
     * How many bytes the peer may reach, from {@link #offset()}.
     *
     * @return the length in bytes
     */
    int length();

    /**
     * What the peer may do with the bytes: exactly the rights asked for.
     *
     * @return the rights (a new set each call)
     */
    Set<RemoteAccess> rights();

    /**
     * Whether only requests over this connection can use the key (a memory window bound to its QP).
     *
     * @return {@code true} for a memory window bound to the connection's QP, {@code false} for a region any connection
     *     of
     * the loop's protection domain could use with the key (devices without memory windows)
     */
    boolean isBoundToConnection();

    /**
     * Why it ended ({@code null} until it has).
     *
     * @return the reason it ended, or {@code null} while the peer can still reach the bytes
     */
    Exposure.End end();

    /**
     * Completes once the key no longer reaches the memory, whatever ended it.
     *
     * @return a Mono that completes once the access is gone (it does not fail)
     */
    Mono<Void> onDispose();

    /**
     * The callback-level exposure underneath.
     *
     * @return the callback-level exposure
     */
    Exposure exposure();
}
