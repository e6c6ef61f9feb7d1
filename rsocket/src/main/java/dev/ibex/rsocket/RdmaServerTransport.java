package dev.ibex.rsocket;

import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.RdmaServer;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.transport.ServerTransport;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * RSocket's {@link ServerTransport} over Ibex RC connections. Immutable: every method returns a new transport.
 *
 * <pre>{@code
 * CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(handler))
 *         .bind(RdmaServerTransport.create("192.168.1.2", 7878))
 *         .block();
 * }</pre>
 *
 * <p>{@link #start} binds {@code server} ({@link RdmaServer#bind()}: its loops, address, listen and connection
 * options) with the transport's accept policy: a connect request without this transport's {@link Handshake} is
 * rejected (consumer REJ, the reason in the private data); each accepted connection exchanges the hello and is handed
 * to RSocket. A connection whose hello does not come within {@link #handshakeTimeout} is closed.
 *
 * <p><b>Threading.</b> Immutable, any thread; connections' signals come on their event loops.
 */
public final class RdmaServerTransport implements ServerTransport<CloseableRdmaServer> {
    private final RdmaServer server;
    private final ByteBufAllocator alloc;
    private final Duration handshakeTimeout;
    private final Duration closeTimeout;

    private RdmaServerTransport(RdmaServer server, ByteBufAllocator alloc, Duration handshakeTimeout,
            Duration closeTimeout) {
        this.server = server;
        this.alloc = alloc;
        this.handshakeTimeout = handshakeTimeout;
        this.closeTimeout = closeTimeout;
    }

    /**
     * Listens on {@code host} ({@code 0.0.0.0}: every RDMA device) and {@code port} (0: any) on the default loops.
     *
     * @param host the local IP address to listen on, {@code 0.0.0.0} for every RDMA device
     * @param port the port to listen on, 0 for any free one ({@link CloseableRdmaServer#address()} tells which)
     * @return the transport
     */
    public static RdmaServerTransport create(String host, int port) {
        return create(RdmaServer.create().host(host).port(port));
    }

    /**
     * Binds {@code server}; its accept policy and handler are replaced by the transport's.
     *
     * @param server the server to bind
     * @return the transport
     */
    public static RdmaServerTransport create(RdmaServer server) {
        Objects.requireNonNull(server, "server");
        return new RdmaServerTransport(server, ByteBufAllocator.DEFAULT, RdmaClientTransport.DEFAULT_HANDSHAKE_TIMEOUT,
                RdmaClientTransport.DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * The allocator received frames are copied into (the one RSocket's {@code alloc()} returns).
     *
     * @param allocator the allocator for received frames
     * @return a copy that copies received frames into {@code allocator}'s buffers
     */
    public RdmaServerTransport allocator(ByteBufAllocator allocator) {
        return new RdmaServerTransport(server, Objects.requireNonNull(allocator, "allocator"), handshakeTimeout,
                closeTimeout);
    }

    /**
     * How long an accepted connection may take to send its hello (default 10 s).
     *
     * @param timeout the longest to wait for an accepted connection's hello, positive
     * @return a copy with that handshake timeout
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public RdmaServerTransport handshakeTimeout(Duration timeout) {
        return new RdmaServerTransport(server, alloc, RdmaClientTransport.positive(timeout), closeTimeout);
    }

    /**
     * How long {@code sendErrorAndClose} waits for the peer to take the ERROR frame (default 5 s).
     *
     * @param timeout the longest to wait for the ERROR frame to be taken, positive
     * @return a copy with that close timeout
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public RdmaServerTransport closeTimeout(Duration timeout) {
        return new RdmaServerTransport(server, alloc, handshakeTimeout, RdmaClientTransport.positive(timeout));
    }

    @Override
    public Mono<CloseableRdmaServer> start(ConnectionAcceptor acceptor) {
        Objects.requireNonNull(acceptor, "acceptor");
        // the server's close waits for these: a connection's frames are released when it closes, which may come
        // just after the RDMA connection itself is gone (RSocket's leak checks run right after onClose)
        Set<RdmaDuplexConnection> live = ConcurrentHashMap.newKeySet();
        return server
                .accept(request -> {
                    String why = Handshake.rejection(request.privateData());
                    return Mono.just(why == null ? AcceptDecision.accept(Handshake.privateData())
                            : AcceptDecision.reject(Handshake.rejectData(why)));
                })
                // the handler's end disposes the connection: run until RSocket is done with it
                .handle(c -> {
                    RdmaDuplexConnection opened = RdmaDuplexConnection.open(c, alloc, closeTimeout);
                    live.add(opened);
                    opened.onClose().onErrorResume(e -> Mono.empty()).doFinally(x -> live.remove(opened))
                            .subscribe();
                    return opened.ready(handshakeTimeout)
                            .flatMap(dc -> acceptor.apply(dc).then(dc.onClose().onErrorResume(e -> Mono.empty())));
                })
                .bind()
                .map(s -> new CloseableRdmaServer(s, live));
    }
}
