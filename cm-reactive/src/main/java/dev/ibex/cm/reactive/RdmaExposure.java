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

    /** What the peer needs: address, rkey and length of exactly the exposed bytes. */
    RemoteBuffer remote();

    /** The buffer the bytes belong to (still the caller's: release it when done, which also ends the exposure). */
    Buffer buffer();

    /** Where the exposed bytes start in {@link #buffer()}. */
    int offset();

    int length();

    Set<RemoteAccess> rights();

    /** Whether only requests over this connection can use the key (a memory window bound to its QP). */
    boolean isBoundToConnection();

    /** Why it ended ({@code null} until it has). */
    Exposure.End end();

    /** Completes once the key no longer reaches the memory, whatever ended it. */
    Mono<Void> onDispose();

    /** The callback-level exposure underneath. */
    Exposure exposure();
}
