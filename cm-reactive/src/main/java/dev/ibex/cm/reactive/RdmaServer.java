package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.RdmaProvider;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Accepts reliable RDMA connections, the reactive way (an immutable builder, like reactor-netty's
 * {@code TcpServer}): every method returns a new server.
 *
 * <pre>{@code
 * DisposableServer server = RdmaServer.create()
 *         .host("192.168.1.2").port(7471)
 *         .accept(req -> Mono.just(AcceptDecision.accept("welcome".getBytes())))
 *         .handle(conn -> conn.send(conn.receive()))      // echo
 *         .bindNow();
 * }</pre>
 *
 * <p>Each connection request goes to the {@link #accept accept policy} (default: accept everything), which may
 * answer later and from any thread, with private data either way. An accepted connection moves to one of the
 * group's loops; once established it is handed to {@link #handle the handler} on that loop, and disposed when the
 * handler's publisher terminates.
 */
public final class RdmaServer {

    /**
     * Where the loops come from: a group the caller owns, the default loops, or loops the server opens on bind
     * (over a provider named or given) and closes, with their fabric, on dispose.
     */
    record Loops(EventLoopGroup group, RdmaProvider provider, String providerName, ProviderConfig config,
            LoopOptions options) {
        static final Loops DEFAULT = new Loops(null, null, null, null, null);

        boolean owned() {
            return config != null;
        }

        EventLoopGroup open() {
            if (group != null) {
                return group;
            }
            if (config == null) {
                return RdmaLoops.global();
            }
            RdmaProvider p = provider != null ? provider : Providers.select(providerName);
            Fabric fabric = p.open(config);
            try {
                EventLoopGroup g = EventLoopGroup.of(fabric, options);
                g.terminationFuture().whenComplete((v, e) -> fabric.close()); // off the loops
                return g;
            } catch (RuntimeException e) {
                fabric.close();
                throw e;
            }
        }
    }

    record Config(Loops loops, String host, int port, ListenOptions options,
            Function<? super RdmaRequest, ? extends Mono<AcceptDecision>> policy,
            Function<? super RdmaConnection, ? extends Publisher<Void>> handler, ConnectionHooks hooks,
            Consumer<? super DisposableServer> onBound, Consumer<? super DisposableServer> onUnbound) {

        InetSocketAddress address() {
            return new InetSocketAddress(host, port);
        }
    }

    private final Config config;

    private RdmaServer(Config config) {
        this.config = config;
    }

    /**
     * A server for any address ({@code 0.0.0.0}) and an ephemeral port, on the default loops.
     *
     * @return a server with default options; nothing is bound until {@link #bind()}
     */
    public static RdmaServer create() {
        return new RdmaServer(new Config(Loops.DEFAULT, "0.0.0.0", 0, ListenOptions.DEFAULT,
                null, null, ConnectionHooks.NONE, null, null));
    }

    private RdmaServer with(Loops loops, String host, int port, ListenOptions options) {
        Config c = config;
        return new RdmaServer(new Config(loops, host, port, options, c.policy, c.handler, c.hooks, c.onBound,
                c.onUnbound));
    }

    /**
     * The address to listen on: a device's IP (that device only) or {@code 0.0.0.0} (all devices).
     *
     * @param host an IP address of a local RDMA device, or {@code 0.0.0.0}
     * @return a copy listening on {@code host}
     */
    public RdmaServer host(String host) {
        Objects.requireNonNull(host, "host");
        return with(config.loops, host, config.port, config.options);
    }

    /**
     * The RDMA CM port; 0 picks a free one ({@link DisposableServer#port()} tells which).
     *
     * @param port 0 to 65535
     * @return a copy listening on {@code port}
     * @throws IllegalArgumentException when {@code port} is outside 0 to 65535
     */
    public RdmaServer port(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port must be in 0..65535, got " + port);
        }
        return with(config.loops, config.host, port, config.options);
    }

    /**
     * Host and port at once.
     *
     * @param address the local IP address (or the wildcard) and port to listen on
     * @return a copy listening on {@code address}
     */
    public RdmaServer bindAddress(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        return with(config.loops, address.getAddress().getHostAddress(), address.getPort(), config.options);
    }

    /**
     * Runs on {@code group} (the caller opened it and closes it).
     *
     * @param group the event loops the listener and its connections run on
     * @return a copy that runs on {@code group}
     */
    public RdmaServer runOn(EventLoopGroup group) {
        Objects.requireNonNull(group, "group");
        return with(new Loops(group, null, null, null, null), config.host, config.port, config.options);
    }

    /**
     * Runs on loops of its own over the provider named {@code provider} ({@code null}: the default rule) with
     * {@code providerConfig}: opened on bind, closed (with the fabric) when the server is disposed.
     *
     * @param provider       the provider's name ({@code "soft-roce"}, {@code "rdma-core"}), or {@code null}
     * @param providerConfig the provider's configuration
     * @param options        the loops' options (how many, spinning, pool sizes)
     * @return a copy that opens its own loops on bind
     */
    public RdmaServer runOn(String provider, ProviderConfig providerConfig, LoopOptions options) {
        Objects.requireNonNull(providerConfig, "providerConfig");
        Objects.requireNonNull(options, "options");
        return with(new Loops(null, null, provider, providerConfig, options), config.host, config.port,
                config.options);
    }

    /**
     * As {@link #runOn(String, ProviderConfig, LoopOptions)} with a provider instance (no ServiceLoader).
     *
     * @param provider       the provider to open
     * @param providerConfig the provider's configuration
     * @param options        the loops' options (how many, spinning, pool sizes)
     * @return a copy that opens its own loops on bind
     */
    public RdmaServer runOn(RdmaProvider provider, ProviderConfig providerConfig, LoopOptions options) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(providerConfig, "providerConfig");
        Objects.requireNonNull(options, "options");
        return with(new Loops(null, provider, null, providerConfig, options), config.host, config.port,
                config.options);
    }

    /**
     * Listen options (backlog, request timeout, where accepted connections run, their connection options).
     *
     * @param options the listen options (default {@link ListenOptions#DEFAULT})
     * @return a copy with those listen options
     */
    public RdmaServer options(ListenOptions options) {
        Objects.requireNonNull(options, "options");
        return with(config.loops, config.host, config.port, options);
    }

    /**
     * Options of accepted connections.
     *
     * @param options the options each accepted connection is created with
     * @return a copy whose listen options carry those connection options
     */
    public RdmaServer connectionOptions(ConnectionOptions options) {
        return options(config.options.withConnection(Objects.requireNonNull(options, "options")));
    }

    /**
     * Decides on each connection request (on the listener's loop; the {@code Mono} may answer later, from any
     * thread). An empty {@code Mono} or an error rejects without private data; unanswered requests are rejected
     * after {@link ListenOptions#requestTimeout()}.
     *
     * @param policy called once per request with the {@link RdmaRequest}; its Mono answers with an {@link
     *     AcceptDecision}
     * @return a copy with that accept policy
     */
    public RdmaServer accept(Function<? super RdmaRequest, ? extends Mono<AcceptDecision>> policy) {
        Objects.requireNonNull(policy, "policy");
        Config c = config;
        return new RdmaServer(new Config(c.loops, c.host, c.port, c.options, policy, c.handler, c.hooks, c.onBound,
                c.onUnbound));
    }

    /**
     * The I/O handler of each established connection (on its loop); the connection is disposed when the returned
     * publisher terminates. It sees the {@code Context} of the {@link #bind()} subscriber.
     *
     * @param handler called once per established connection; the connection lives until its publisher terminates
     * @return a copy with that handler
     */
    public RdmaServer handle(Function<? super RdmaConnection, ? extends Publisher<Void>> handler) {
        Objects.requireNonNull(handler, "handler");
        Config c = config;
        return new RdmaServer(new Config(c.loops, c.host, c.port, c.options, c.policy, handler, c.hooks, c.onBound,
                c.onUnbound));
    }

    /**
     * Called on the loop when a connection is established, before the handler.
     *
     * @param callback runs on the connection's loop; an exception it throws is logged
     * @return a copy with the callback added to those set before
     */
    public RdmaServer doOnConnection(Consumer<? super RdmaConnection> callback) {
        return hooks(config.hooks.doOnConnected(Objects.requireNonNull(callback, "callback")));
    }

    /**
     * Called on the loop when an accepted connection is closed.
     *
     * @param callback runs on the connection's loop; an exception it throws is logged
     * @return a copy with the callback added to those set before
     */
    public RdmaServer doOnDisconnection(Consumer<? super RdmaConnection> callback) {
        return hooks(config.hooks.doOnDisconnected(Objects.requireNonNull(callback, "callback")));
    }

    /**
     * Observes every event of every accepted connection.
     *
     * @param observer called on each connection's loop with every {@link ConnectionEvent}
     * @return a copy with the observer added to those set before
     */
    public RdmaServer observe(ConnectionObserver observer) {
        return hooks(config.hooks.observe(Objects.requireNonNull(observer, "observer")));
    }

    /**
     * Reports accept decisions, bytes and errors to {@code recorder}.
     *
     * @param recorder the recorder, or {@code null} for none
     * @return a copy reporting to {@code recorder}
     */
    public RdmaServer metrics(RdmaMetricsRecorder recorder) {
        return hooks(config.hooks.metrics(recorder));
    }

    /**
     * Turns metrics on or off, as reactor-netty's {@code metrics(true)}: on, the recorder the
     * {@link RdmaMetricsRecorderProvider} on the path makes for {@code "server"} (with {@code ibex-micrometer}: meters
     * {@code ibex.rdma.server.*} in Micrometer's global registry, and the provider's counters).
     *
     * @throws UnsupportedOperationException when enabling and no provider is on the path
     * @param enable {@code true} to record with the provider's recorder, {@code false} for no metrics
     * @return a copy with metrics on or off
     */
    public RdmaServer metrics(boolean enable) {
        return hooks(config.hooks.metrics(enable ? RdmaMetricsRecorderProvider.load("server") : null));
    }

    /**
     * Logs every connection request and decision, every connection event and every message (length and the first
     * 64 bytes as a hex dump) at DEBUG under the logger {@code dev.ibex.wiretap.server}, like reactor-netty's
     * {@code wiretap(true)}; {@code false} turns it off.
     *
     * @param enable {@code true} to log, {@code false} not to
     * @return a copy with the wiretap on or off
     */
    public RdmaServer wiretap(boolean enable) {
        return hooks(config.hooks.wiretap(enable ? WireLog.of("server") : null));
    }

    /**
     * The wiretap under the logger {@code category}, dumping the first {@code hexDumpBytes} bytes of each message
     * (0: lengths only).
     *
     * @param category     the SLF4J logger name to log under
     * @param hexDumpBytes how many leading bytes of each message to dump
     * @return a copy with that wiretap
     */
    public RdmaServer wiretap(String category, int hexDumpBytes) {
        Objects.requireNonNull(category, "category");
        return hooks(config.hooks.wiretap(new WireLog(category, hexDumpBytes)));
    }

    /**
     * Called once listening, before {@link #bind()} emits.
     *
     * @param callback called once, on the listener's loop; an exception it throws is logged
     * @return a copy with that callback (replacing one set before)
     */
    public RdmaServer doOnBound(Consumer<? super DisposableServer> callback) {
        Objects.requireNonNull(callback, "callback");
        Config c = config;
        return new RdmaServer(new Config(c.loops, c.host, c.port, c.options, c.policy, c.handler, c.hooks, callback,
                c.onUnbound));
    }

    /**
     * Called once the server and all its connections are closed.
     *
     * @param callback called once, when everything is closed
     * @return a copy with that callback (replacing one set before)
     */
    public RdmaServer doOnUnbound(Consumer<? super DisposableServer> callback) {
        Objects.requireNonNull(callback, "callback");
        Config c = config;
        return new RdmaServer(new Config(c.loops, c.host, c.port, c.options, c.policy, c.handler, c.hooks,
                c.onBound, callback));
    }

    private RdmaServer hooks(ConnectionHooks h) {
        Config c = config;
        return new RdmaServer(new Config(c.loops, c.host, c.port, c.options, c.policy, c.handler, h, c.onBound,
                c.onUnbound));
    }

    /**
     * Binds and listens when subscribed; emits the server once listening, or fails (address not on an RDMA device,
     * port in use …). Cancelling before that closes the listener.
     *
     * @return a Mono that emits the listening server, or fails with the provider's error (an
     * {@link dev.ibex.cm.RdmaException} saying which verb failed and why)
     */
    public Mono<DisposableServer> bind() {
        Config cfg = config;
        return Mono.<DisposableServer>create(sink -> {
            EventLoopGroup group = cfg.loops.open();
            if (cfg.hooks.metrics() != null) {
                cfg.hooks.metrics().registerCounters(group);
            }
            BoundServer s = new BoundServer(cfg, group, cfg.loops.owned(), sink,
                    Context.of(sink.contextView()));
            sink.onCancel(s::bindCancelled);
            s.start();
        }).doOnDiscard(DisposableServer.class, DisposableServer::dispose);
    }

    /**
     * {@link #bind()} and wait up to 10 s (never on an event loop).
     *
     * @return the listening server
     * @throws IllegalStateException on an event loop thread, or when binding takes longer than 10 s
     */
    public DisposableServer bindNow() {
        return bindNow(Duration.ofSeconds(10));
    }

    /**
     * {@link #bind()} and wait up to {@code timeout} (never on an event loop).
     *
     * @param timeout the longest to wait for the listener
     * @return the listening server
     * @throws IllegalStateException on an event loop thread, or when binding takes longer than {@code timeout}
     */
    public DisposableServer bindNow(Duration timeout) {
        Blocking.check("bindNow");
        return bind().block(timeout);
    }
}
