package dev.ibex.rsocket;

import dev.ibex.cm.reactive.DisposableServer;
import io.rsocket.Closeable;
import java.net.InetSocketAddress;
import reactor.core.publisher.Mono;

/**
 * A bound {@link RdmaServerTransport}: RSocket's {@link Closeable} over the {@link DisposableServer}. Disposing stops
 * listening and disconnects every connection; {@link #onClose()} completes when all of them are closed.
 *
 * <p><b>Threading.</b> Any thread.
 */
public final class CloseableRdmaServer implements Closeable {
    private final DisposableServer server;

    CloseableRdmaServer(DisposableServer server) {
        this.server = server;
    }

    /** The address it listens on, with the port actually bound. */
    public InetSocketAddress address() {
        return server.address();
    }

    /** The underlying Ibex server (connection counts, diagnostics). */
    public DisposableServer server() {
        return server;
    }

    @Override
    public Mono<Void> onClose() {
        return server.onDispose();
    }

    @Override
    public void dispose() {
        server.dispose();
    }

    @Override
    public boolean isDisposed() {
        return server.isDisposed();
    }

    @Override
    public String toString() {
        return "CloseableRdmaServer[" + server.address() + "]";
    }
}
