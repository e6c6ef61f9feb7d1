package dev.ibex.rsocket;

import dev.ibex.cm.reactive.RdmaClient;
import io.netty.buffer.ByteBufAllocator;
import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * RSocket's {@link ClientTransport} over an Ibex RC connection. Immutable: every method returns a new transport.
 *
 * <pre>{@code
 * RSocket rsocket = RSocketConnector.create()
 *         .connect(RdmaClientTransport.create("192.168.1.2", 7878).connectTimeout(Duration.ofSeconds(2)))
 *         .block();
 * }</pre>
 *
 * <p>{@link #connect()} connects with {@link RdmaClient#connect()} (its loops, options and timeout; the transport
 * sets the private data to its {@link Handshake}), exchanges the hello and emits the {@link RdmaDuplexConnection}.
 * It fails with the CM's typed {@code RdmaConnectException} (REJECTED with status 8 when nothing listens, 28 with
 * the server's reason when it is not an RSocket-over-Ibex server or refuses the framing version, TIMEOUT, …), with a
 * {@code TimeoutException} when the hello does not come within {@link #handshakeTimeout}, or with a
 * {@link FramingException} when the server's answer is not this transport's. Cancelling tears a half-made
 * connection down.
 *
 * <p>Received frames are copied into buffers of {@link #allocator} (default {@link ByteBufAllocator#DEFAULT}).
 *
 * <p><b>Threading.</b> Immutable, any thread; the connection's signals come on its event loop.
 */
public final class RdmaClientTransport implements ClientTransport {
    static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final RdmaClient client;
    private final ByteBufAllocator alloc;
    private final Duration handshakeTimeout;
    private final Duration closeTimeout;

    private RdmaClientTransport(RdmaClient client, ByteBufAllocator alloc, Duration handshakeTimeout,
            Duration closeTimeout) {
        this.client = client;
        this.alloc = alloc;
        this.handshakeTimeout = handshakeTimeout;
        this.closeTimeout = closeTimeout;
    }

    /**
     * Connects to the RSocket-over-Ibex server at {@code host}:{@code port} on the default loops.
     *
     * @param host the server's IP address, or a name resolved when connecting
     * @param port the server's port, 1 to 65535
     * @return the transport
     * @throws IllegalArgumentException when {@code port} is outside 1 to 65535
     */
    public static RdmaClientTransport create(String host, int port) {
        return create(RdmaClient.create().host(host).port(port));
    }

    /**
     * Connects with {@code client} (address, loops, connection options, timeout); its private data is replaced.
     *
     * @param client the client to connect with
     * @return the transport
     */
    public static RdmaClientTransport create(RdmaClient client) {
        Objects.requireNonNull(client, "client");
        return new RdmaClientTransport(client, ByteBufAllocator.DEFAULT, DEFAULT_HANDSHAKE_TIMEOUT,
                DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * The allocator received frames are copied into (the one RSocket's {@code alloc()} returns).
     *
     * @param allocator the allocator for received frames
     * @return a copy that copies received frames into {@code allocator}'s buffers
     */
    public RdmaClientTransport allocator(ByteBufAllocator allocator) {
        return new RdmaClientTransport(client, Objects.requireNonNull(allocator, "allocator"), handshakeTimeout,
                closeTimeout);
    }

    /**
     * How long address and route resolution and the CM connect may take ({@code RdmaClient.connectTimeout}).
     *
     * @param timeout the longest resolution and connect may take
     * @return a copy with that connect timeout
     */
    public RdmaClientTransport connectTimeout(Duration timeout) {
        return new RdmaClientTransport(client.connectTimeout(timeout), alloc, handshakeTimeout, closeTimeout);
    }

    /**
     * How long to wait for the server's hello once connected (default 10 s).
     *
     * @param timeout the longest to wait for the hello, positive
     * @return a copy with that handshake timeout
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public RdmaClientTransport handshakeTimeout(Duration timeout) {
        return new RdmaClientTransport(client, alloc, positive(timeout), closeTimeout);
    }

    /**
     * How long {@code sendErrorAndClose} waits for the peer to take the ERROR frame before disconnecting anyway
     * (default 5 s).
     *
     * @param timeout the longest to wait for the ERROR frame to be taken, positive
     * @return a copy with that close timeout
     * @throws IllegalArgumentException when {@code timeout} is zero or negative
     */
    public RdmaClientTransport closeTimeout(Duration timeout) {
        return new RdmaClientTransport(client, alloc, handshakeTimeout, positive(timeout));
    }

    @Override
    public Mono<DuplexConnection> connect() {
        return client.privateData(Handshake.privateData()).connect().flatMap(c -> {
            String why = Handshake.rejection(c.peerPrivateData());
            if (why != null) {
                c.dispose();
                return Mono.error(new FramingException("the server at " + c.remoteAddress() + " is " + why));
            }
            return RdmaDuplexConnection.open(c, alloc, closeTimeout).ready(handshakeTimeout);
        });
    }

    static Duration positive(Duration d) {
        Objects.requireNonNull(d, "timeout");
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("a timeout must be positive, got " + d);
        }
        return d;
    }
}
