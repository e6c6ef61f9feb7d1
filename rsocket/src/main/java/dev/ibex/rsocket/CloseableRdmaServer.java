package dev.ibex.rsocket;

import dev.ibex.cm.reactive.DisposableServer;
import io.rsocket.Closeable;
import java.net.InetSocketAddress;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * A bound {@link RdmaServerTransport}: RSocket's {@link Closeable} over the {@link DisposableServer}. Disposing stops
 * listening and disconnects every connection; {@link #onClose()} completes when all of them are closed and
 * have released what they held.
 *
 * <p><b>Threading.</b> Any thread.
 */
public final class CloseableRdmaServer implements Closeable {
    private final DisposableServer server;
    private final Set<RdmaDuplexConnection> live;

    CloseableRdmaServer(DisposableServer server, Set<RdmaDuplexConnection> live) {
        this.server = server;
        this.live = live;
    }

    /**
     * The address it listens on, with the port actually bound.
     *
     * @return the bound address and port
     */
    public InetSocketAddress address() {
        return server.address();
    }

    /**
     * The underlying Ibex server (connection counts, diagnostics).
     *
     * @return the Ibex server this transport bound
     */
    public DisposableServer server() {
        return server;
    }

    @Override
    public Mono<Void> onClose() {
        // after the RDMA connections, each RSocket connection's own close: its queued frames are released by then
        return server.onDispose().then(Mono.defer(() -> Mono.when(live.stream()
                .map(c -> c.onClose().onErrorResume(e -> Mono.empty())).toList())));
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
