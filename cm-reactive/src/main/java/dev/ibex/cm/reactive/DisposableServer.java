package dev.ibex.cm.reactive;

import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A bound {@link RdmaServer}. {@link #dispose()} stops listening, answers pending requests with a reject and
 * disconnects every connection it accepted; {@link #onDispose()} completes when all of that is done.
 */
public interface DisposableServer extends Disposable {

    /** The address it listens on, with the port actually bound. */
    InetSocketAddress address();

    default String host() {
        return address().getAddress().getHostAddress();
    }

    default int port() {
        return address().getPort();
    }

    /**
     * The connections it accepts from now on (hot, emitted on each connection's loop once established; a
     * subscriber without demand misses connections rather than buffering them). Completes when disposed.
     */
    Flux<RdmaConnection> connections();

    /** Connections accepted and not yet closed. */
    int activeConnections();

    /**
     * Connection requests not yet established: awaiting the accept policy, or accepted and awaiting the handshake.
     * Bounded by {@code ListenOptions.withHalfOpen}; requests beyond the bounds are refused at once.
     */
    default int halfOpenConnections() {
        return 0;
    }

    /** Requests refused for exceeding the half-open bounds (a flood, or more clients than it can take). */
    default long refusedRequests() {
        return 0;
    }

    /** Completes when the listener and every connection it accepted are closed. */
    Mono<Void> onDispose();

    /** {@link #dispose()} and wait up to {@code timeout} (never on an event loop). */
    default void disposeNow(Duration timeout) {
        Blocking.check("disposeNow");
        dispose();
        onDispose().block(timeout);
    }

    default void disposeNow() {
        disposeNow(Duration.ofSeconds(10));
    }
}
