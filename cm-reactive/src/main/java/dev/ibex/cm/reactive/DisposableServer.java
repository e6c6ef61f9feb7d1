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

    /**
     * The address it listens on, with the port actually bound.
     *
     * @return the bound address and port
     */
    InetSocketAddress address();

    /**
     * The address it listens on, as text.
     *
     * @return the IP address ({@code 0.0.0.0} when listening on every device)
     */
    default String host() {
        return address().getAddress().getHostAddress();
    }

    /**
     * The port it listens on (the one picked when bound with port 0).
     *
     * @return the RDMA CM port
     */
    default int port() {
        return address().getPort();
    }

    /**
     * The connections it accepts from now on (hot, emitted on each connection's loop once established; a
     * subscriber without demand misses connections rather than buffering them). Completes when disposed.
     *
     * @return the accepted connections (hot)
     */
    Flux<RdmaConnection> connections();

    /**
     * Connections accepted and not yet closed.
     *
     * @return the number of open accepted connections
     */
    int activeConnections();

    /**
     * Connection requests not yet established: awaiting the accept policy, or accepted and awaiting the handshake.
     * Bounded by {@code ListenOptions.withHalfOpen}; requests beyond the bounds are refused at once.
     *
     * @return the number of half-open requests now
     */
    default int halfOpenConnections() {
        return 0;
    }

    /**
     * Requests refused for exceeding the half-open bounds (a flood, or more clients than it can take).
     *
     * @return the number of requests refused since bound
     */
    default long refusedRequests() {
        return 0;
    }

    /**
     * Completes when the listener and every connection it accepted are closed; errors instead, once they are, with the
     * listener's typed failure when the listener stopped by itself (its device was removed: an
     * {@link dev.ibex.cm.RdmaConnectException} with reason DEVICE_REMOVAL).
     *
     * @return a Mono that completes (or errors) once everything is closed
     */
    Mono<Void> onDispose();

    /**
     * {@link #dispose()} and wait up to {@code timeout} (never on an event loop).
     *
     * @param timeout the longest to wait for {@link #onDispose()}
     * @throws IllegalStateException on an event loop thread, or when closing takes longer than {@code timeout}
     */
    default void disposeNow(Duration timeout) {
        Blocking.check("disposeNow");
        dispose();
        onDispose().onErrorComplete().block(timeout); // a listener failure was reported through onDispose() already
    }

    /**
     * {@link #dispose()} and wait up to 10 s (never on an event loop).
     *
     * @throws IllegalStateException on an event loop thread, or when closing takes longer than 10 s
     */
    default void disposeNow() {
        disposeNow(Duration.ofSeconds(10));
    }
}
