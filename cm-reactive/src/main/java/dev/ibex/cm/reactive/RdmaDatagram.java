package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.cm.endpoint.DatagramRequest;
import dev.ibex.cm.loop.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Binds unreliable-datagram (UD) endpoints, the reactive way (an immutable builder, like reactor-netty's
 * {@code UdpServer}): every method returns a new instance.
 *
 * <pre>{@code
 * // a UD service that answers SIDR lookups and echoes every datagram to its sender
 * DatagramEndpoint service = RdmaDatagram.create().host("192.168.1.2").port(7471)
 *         .accept(req -> Mono.just(AcceptDecision.accept()))
 *         .bindNow();
 * service.receive().concatMap(d -> service.replyTo(d)
 *         .flatMap(to -> service.send(to, Mono.just(d.retain().message())).doFinally(s -> to.close())))
 *         .subscribe();
 * // a client: resolve the service (SIDR) and send
 * DatagramEndpoint me = RdmaDatagram.create().host("192.168.1.3").bindNow();
 * UdPeer svc = me.resolve(new InetSocketAddress("192.168.1.2", 7471), null).block();
 * me.send(svc, Flux.just("a", "b")).block();
 * }</pre>
 *
 * <p>A UD endpoint must be bound to an address of an RDMA device (not the wildcard): its QP lives on that device.
 */
public final class RdmaDatagram {

    private record Config(Supplier<EventLoopGroup> loops, String host, int port, DatagramOptions options, int queue,
            Function<? super DatagramRequest, ? extends Publisher<AcceptDecision>> policy,
            RdmaMetricsRecorder metrics) {}

    private final Config config;

    private RdmaDatagram(Config config) {
        this.config = config;
    }

    /**
     * Default options on the {@link RdmaLoops#global() default loops}; set {@link #host} before binding.
     *
     * @return a builder with default options; nothing is bound until {@link #bind()}
     */
    public static RdmaDatagram create() {
        return new RdmaDatagram(new Config(RdmaLoops::global, null, 0, DatagramOptions.DEFAULT, -1, null, null));
    }

    /**
     * The local address to bind to (an address of an RDMA device).
     *
     * @param host an IP address of a local RDMA device
     * @return a copy binding to {@code host}
     */
    public RdmaDatagram host(String host) {
        Objects.requireNonNull(host, "host");
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, host, c.port, c.options, c.queue, c.policy, c.metrics));
    }

    /**
     * The local port (its RDMA CM port space, {@code RDMA_PS_UDP}); 0, the default, picks one.
     *
     * @param port 0 to 65535
     * @return a copy binding to {@code port}
     * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
     */
    public RdmaDatagram port(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port must be in 0..65535, got " + port);
        }
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, c.host, port, c.options, c.queue, c.policy, c.metrics));
    }

    /**
     * Endpoint options (receive window, send queue depth, SIDR deadline …).
     *
     * @param options the endpoint options (default {@link DatagramOptions#DEFAULT})
     * @return a copy with those options
     */
    public RdmaDatagram options(DatagramOptions options) {
        Objects.requireNonNull(options, "options");
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, c.host, c.port, options, c.queue, c.policy, c.metrics));
    }

    /**
     * Receives kept posted.
     *
     * @param receives how many receives to keep posted, positive
     * @return a copy with that receive window
     * @throws IllegalArgumentException when {@code receives} is not positive
     */
    public RdmaDatagram receiveWindow(int receives) {
        return options(config.options.withReceiveWindow(receives));
    }

    /**
     * How many datagrams may wait for the subscriber's demand before arrivals are dropped and counted (default: a
     * quarter of the receive window). Must stay below the receive window, so receives stay posted.
     *
     * @param datagrams how many datagrams may wait, 0 or more (0: drop what finds no demand at once)
     * @return a copy with that queue bound
     * @throws IllegalArgumentException when {@code datagrams} is negative
     */
    public RdmaDatagram receiveQueue(int datagrams) {
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, c.host, c.port, c.options, checkQueue(datagrams), c.policy,
                c.metrics));
    }

    /**
     * How long a SIDR resolution may take.
     *
     * @param timeout the longest a resolution may take, positive
     * @return a copy with that timeout
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    public RdmaDatagram resolveTimeout(Duration timeout) {
        return options(config.options.withDeadline(timeout));
    }

    /**
     * Answers SIDR lookups ({@link DatagramEndpoint#resolve} from peers) with {@code policy}: accept (with up to 136
     * bytes the resolver sees) or reject. An empty publisher or an error rejects; unanswered requests are rejected
     * after {@link DatagramOptions#requestTimeout()}. Without a policy the endpoint does not listen.
     *
     * @param policy called once per lookup; its publisher's first {@link AcceptDecision} answers it
     * @return a copy that listens for lookups and answers them with {@code policy}
     */
    public RdmaDatagram accept(Function<? super DatagramRequest, ? extends Publisher<AcceptDecision>> policy) {
        Objects.requireNonNull(policy, "policy");
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, c.host, c.port, c.options.withListen(true), c.queue, policy,
                c.metrics));
    }

    /**
     * Runs on {@code group} (the caller opened it and closes it).
     *
     * @param group the event loops the endpoint runs on
     * @return a copy that runs on {@code group}
     */
    public RdmaDatagram runOn(EventLoopGroup group) {
        Objects.requireNonNull(group, "group");
        Config c = config;
        return new RdmaDatagram(new Config(() -> group, c.host, c.port, c.options, c.queue, c.policy, c.metrics));
    }

    /**
     * Reports each endpoint's datagrams and bytes sent and received, failed sends, drops and the endpoints open now
     * to {@code recorder} ({@link RdmaMetricsRecorder#datagramMetrics}); {@code null} turns it off.
     *
     * @param recorder the recorder, or {@code null}
     * @return a new builder
     */
    public RdmaDatagram metrics(RdmaMetricsRecorder recorder) {
        Config c = config;
        return new RdmaDatagram(new Config(c.loops, c.host, c.port, c.options, c.queue, c.policy, recorder));
    }

    /**
     * Turns metrics on or off, as reactor-netty's {@code metrics(true)}: on, the recorder the
     * {@link RdmaMetricsRecorderProvider} on the path makes for {@code "datagram"} (with {@code ibex-micrometer}:
     * meters {@code ibex.rdma.datagram.*} in Micrometer's global registry).
     *
     * @param enable on or off
     * @return a new builder
     * @throws UnsupportedOperationException when enabling and no provider is on the path
     */
    public RdmaDatagram metrics(boolean enable) {
        return metrics(enable ? RdmaMetricsRecorderProvider.load("datagram") : null);
    }

    /**
     * Binds when subscribed: emits the endpoint (on its loop) once its UD QP is ready and receives are posted, or
     * fails (no RDMA device at the address: {@code RdmaException}; the wildcard: {@code IllegalArgumentException}).
     * Cancelling before that closes what was made.
     *
     * @return a Mono that emits the bound endpoint, or fails as described above (also with an
     * {@link IllegalArgumentException} when the receive queue is not below the receive window)
     */
    public Mono<DatagramEndpoint> bind() {
        Config c = config;
        return Mono.<DatagramEndpoint>create(sink -> {
            ReactiveDatagram d = new ReactiveDatagram(c.loops.get().next(), null, false,
                    queue(c.queue, c.options), c.policy, c.metrics);
            d.start(address(c.host, c.port), c.options, sink);
        }).doOnDiscard(DatagramEndpoint.class, DatagramEndpoint::dispose);
    }

    /**
     * {@link #bind()} and wait up to 10 s; never on an event loop.
     *
     * @return the bound endpoint
     * @throws IllegalStateException on an event loop thread, or when binding takes longer than 10 s
     */
    public DatagramEndpoint bindNow() {
        Blocking.check("bindNow");
        return bind().block(Duration.ofSeconds(10));
    }

    static InetSocketAddress address(String host, int port) {
        if (host == null) {
            throw new IllegalStateException("set host(...): a UD endpoint binds to an address of an RDMA device");
        }
        return new InetSocketAddress(host, port);
    }

    static int checkQueue(int datagrams) {
        if (datagrams < 0) {
            throw new IllegalArgumentException("the receive queue must be >= 0, got " + datagrams);
        }
        return datagrams;
    }

    /** The receive queue bound: as configured (below the window), else a quarter of the window. */
    static int queue(int configured, DatagramOptions options) {
        int window = options.receiveWindow();
        if (configured < 0) {
            return window / 4;
        }
        if (configured >= window) {
            throw new IllegalArgumentException("a receive queue of " + configured + " must stay below the receive "
                    + "window of " + window + ", or no receive would stay posted");
        }
        return configured;
    }
}
