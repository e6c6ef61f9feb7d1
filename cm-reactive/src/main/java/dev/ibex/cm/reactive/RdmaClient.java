package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RejectReason;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.CmId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.retry.Retry;

/**
 * Connects reliable RDMA connections, the reactive way (an immutable builder, like reactor-netty's
 * {@code TcpClient}): every method returns a new client.
 *
 * <pre>{@code
 * RdmaConnection c = RdmaClient.create()
 *         .remoteAddress(new InetSocketAddress("192.168.1.2", 7471))
 *         .privateData("hello".getBytes())
 *         .connectTimeout(Duration.ofSeconds(2))
 *         .connectNow();
 * }</pre>
 *
 * <p>{@link #connect()} resolves the address and the route and connects; the {@code Mono} emits the established
 * connection on its event loop or fails with an {@link RdmaConnectException} whose {@code reason()} names the CM
 * event that ended the attempt (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED with the peer's private data,
 * CONNECT_ERROR, TIMEOUT …). Cancelling it tears the half-made connection down (every resource is released).
 */
public final class RdmaClient {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaClient.class);

    private record Config(Supplier<EventLoopGroup> loops, InetSocketAddress remote, String host, int port,
            byte[] privateData, ConnectionOptions options,
            Function<? super RdmaConnection, ? extends Publisher<Void>> handler, ConnectionHooks hooks,
            InetSocketAddress local) {}

    private final Config config;

    private RdmaClient(Config config) {
        this.config = config;
    }

    /**
     * A client with default options on the {@link RdmaLoops#global() default loops}.
     *
     * @return a client with default options; nothing connects until {@link #connect()}
     */
    public static RdmaClient create() {
        return new RdmaClient(new Config(RdmaLoops::global, null, null, -1, new byte[0], ConnectionOptions.DEFAULT,
                null, ConnectionHooks.NONE, null));
    }

    /**
     * The peer's host (an IP address, or a name resolved when connecting); use with {@link #port}.
     *
     * @param host the server's IP address, or a name resolved when connecting
     * @return a copy connecting to {@code host}
     */
    public RdmaClient host(String host) {
        Objects.requireNonNull(host, "host");
        Config c = config;
        return new RdmaClient(new Config(c.loops, null, host, c.port, c.privateData, c.options, c.handler, c.hooks,
                c.local));
    }

    /**
     * The peer's RDMA CM port (the listener's port).
     *
     * @param port 1 to 65535
     * @return a copy connecting to {@code port}
     * @throws IllegalArgumentException when {@code port} is outside 1 to 65535
     */
    public RdmaClient port(int port) {
        if (port <= 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("port must be in 1..65535, got " + port);
        }
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, port, c.privateData, c.options, c.handler,
                c.hooks, c.local));
    }

    /**
     * Connects from {@code local}: the client resolves the peer from that source address ({@code rdma_resolve_addr}
     * with a source, as {@code rping -I} or {@code ucmatose -b}), so the connection uses the RDMA device that owns
     * it and the server sees it as the requester. Port 0 takes any free CM port. An address no RDMA device owns
     * fails {@link #connect()} with an ADDR_ERROR {@link RdmaConnectException} (EADDRNOTAVAIL or ENODEV).
     * Without it the route to the peer chooses the source.
     *
     * @param local the local address (an IP address of an RDMA device, or a name resolved on connect) and CM port
     * @return a copy connecting from {@code local}
     */
    public RdmaClient bindAddress(InetSocketAddress local) {
        Objects.requireNonNull(local, "local");
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, c.port, c.privateData, c.options, c.handler,
                c.hooks, local));
    }

    /**
     * {@link #bindAddress} with port 0: connect from {@code host} (an IP address, or a name resolved on connect).
     *
     * @param host the local IP address, or a name resolved on connect
     * @return a copy connecting from {@code host}
     */
    public RdmaClient localHost(String host) {
        Objects.requireNonNull(host, "host");
        return bindAddress(InetSocketAddress.createUnresolved(host, 0));
    }

    /**
     * The peer's address (instead of {@link #host}/{@link #port}).
     *
     * @param remote the server's address and RDMA CM port (unresolved: looked up when connecting)
     * @return a copy connecting to {@code remote}
     */
    public RdmaClient remoteAddress(InetSocketAddress remote) {
        Objects.requireNonNull(remote, "remote");
        Config c = config;
        return new RdmaClient(new Config(c.loops, remote, null, -1, c.privateData, c.options, c.handler, c.hooks,
                c.local));
    }

    /**
     * Private data sent with the connection request (the server's accept policy sees it).
     *
     * @throws IllegalArgumentException beyond {@value CmId#MAX_CONNECT_PRIVATE_DATA_TCP} bytes
     * @param data the bytes to send, copied ({@code null} for none)
     * @return a copy sending {@code data}
     */
    public RdmaClient privateData(byte[] data) {
        byte[] d = data == null ? new byte[0] : data.clone();
        if (d.length > CmId.MAX_CONNECT_PRIVATE_DATA_TCP) {
            throw new IllegalArgumentException("connect carries at most " + CmId.MAX_CONNECT_PRIVATE_DATA_TCP
                    + " bytes of private data, got " + d.length);
        }
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, c.port, d, c.options, c.handler, c.hooks, c.local));
    }

    /**
     * How long resolution and connection may take in total before the attempt fails with TIMEOUT.
     *
     * @param timeout the longest resolution and connection may take, positive
     * @return a copy with that timeout
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    public RdmaClient connectTimeout(Duration timeout) {
        return options(config.options.withConnectTimeout(timeout));
    }

    /**
     * Connection options (queue depths, receive window, inline size, retries …).
     *
     * @param options the options each connection is created with
     * @return a copy with those options
     */
    public RdmaClient options(ConnectionOptions options) {
        Objects.requireNonNull(options, "options");
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, c.port, c.privateData, options, c.handler,
                c.hooks, c.local));
    }

    /**
     * Runs connections on {@code group} (the caller opened it and closes it).
     *
     * @param group the event loops connections run on
     * @return a copy that runs on {@code group}
     */
    public RdmaClient runOn(EventLoopGroup group) {
        Objects.requireNonNull(group, "group");
        Config c = config;
        return new RdmaClient(new Config(() -> group, c.remote, c.host, c.port, c.privateData, c.options, c.handler,
                c.hooks, c.local));
    }

    /**
     * Attaches an I/O handler to each connection once established; when its publisher terminates the connection
     * is disposed. The handler sees the {@code Context} of the {@link #connect()} subscriber.
     *
     * @param handler called once per established connection; the connection lives until its publisher terminates
     * @return a copy with that handler
     */
    public RdmaClient handle(Function<? super RdmaConnection, ? extends Publisher<Void>> handler) {
        Objects.requireNonNull(handler, "handler");
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, c.port, c.privateData, c.options, handler,
                c.hooks, c.local));
    }

    /**
     * Called on the loop when a connection is established, before {@link #connect()} emits it.
     *
     * @param callback runs on the connection's loop; an exception it throws is logged
     * @return a copy with the callback added to those set before
     */
    public RdmaClient doOnConnected(Consumer<? super RdmaConnection> callback) {
        return hooks(config.hooks.doOnConnected(Objects.requireNonNull(callback, "callback")));
    }

    /**
     * Called on the loop when a connection is closed (everything released).
     *
     * @param callback runs on the connection's loop; an exception it throws is logged
     * @return a copy with the callback added to those set before
     */
    public RdmaClient doOnDisconnected(Consumer<? super RdmaConnection> callback) {
        return hooks(config.hooks.doOnDisconnected(Objects.requireNonNull(callback, "callback")));
    }

    /**
     * Observes every event of every connection (after the observers added before).
     *
     * @param observer called on each connection's loop with every {@link ConnectionEvent}
     * @return a copy with the observer added
     */
    public RdmaClient observe(ConnectionObserver observer) {
        return hooks(config.hooks.observe(Objects.requireNonNull(observer, "observer")));
    }

    /**
     * Reports connect times, bytes and errors to {@code recorder}.
     *
     * @param recorder the recorder, or {@code null} for none
     * @return a copy reporting to {@code recorder}
     */
    public RdmaClient metrics(RdmaMetricsRecorder recorder) {
        return hooks(config.hooks.metrics(recorder));
    }

    /**
     * Turns metrics on or off, as reactor-netty's {@code metrics(true)}: on, the recorder the
     * {@link RdmaMetricsRecorderProvider} on the path makes for {@code "client"} (with {@code ibex-micrometer}: meters
     * {@code ibex.rdma.client.*} in Micrometer's global registry, and the provider's counters).
     *
     * @throws UnsupportedOperationException when enabling and no provider is on the path
     * @param enable {@code true} to record with the provider's recorder, {@code false} for no metrics
     * @return a copy with metrics on or off
     */
    public RdmaClient metrics(boolean enable) {
        return hooks(config.hooks.metrics(enable ? RdmaMetricsRecorderProvider.load("client") : null));
    }

    /**
     * Logs every connect attempt and its outcome, every connection event and every message (length and the first
     * 64 bytes as a hex dump) at DEBUG under the logger {@code dev.ibex.wiretap.client}, like reactor-netty's
     * {@code wiretap(true)}; {@code false} turns it off.
     *
     * @param enable {@code true} to log, {@code false} not to
     * @return a copy with the wiretap on or off
     */
    public RdmaClient wiretap(boolean enable) {
        return hooks(config.hooks.wiretap(enable ? WireLog.of("client") : null));
    }

    /**
     * The wiretap under the logger {@code category}, dumping the first {@code hexDumpBytes} bytes of each message
     * (0: lengths only).
     *
     * @param category     the SLF4J logger name to log under
     * @param hexDumpBytes how many leading bytes of each message to dump
     * @return a copy with that wiretap
     */
    public RdmaClient wiretap(String category, int hexDumpBytes) {
        Objects.requireNonNull(category, "category");
        return hooks(config.hooks.wiretap(new WireLog(category, hexDumpBytes)));
    }

    private RdmaClient hooks(ConnectionHooks h) {
        Config c = config;
        return new RdmaClient(new Config(c.loops, c.remote, c.host, c.port, c.privateData, c.options, c.handler, h,
                c.local));
    }

    /**
     * Connects when subscribed: emits the established connection (on its loop) or fails with an
     * {@link RdmaConnectException}. Cancelling closes the attempt and releases everything it had created.
     *
     * <p>An Ibex server that refuses the request because too many are half-open at once ({@link
     * RejectReason#OVERLOADED}: its admission bound, per listener or per source address) is asked again after a short
     * randomised back-off, as long as the connect timeout leaves time (50 ms after the back-off): a connect storm from
     * one client queues instead of failing. Every other refusal, and the last overloaded one, fails the connect as
     * before (typed OVERLOADED, not a TIMEOUT of an attempt that had no time left).
     *
     * @return a Mono that emits the connection, or fails with an {@link RdmaConnectException} whose reason says what
     *     went
     * wrong (ADDR_ERROR, ROUTE_ERROR, REJECTED, UNREACHABLE, TIMEOUT …), or with an {@link IllegalStateException} when
     * no peer address was set
     */
    public Mono<RdmaConnection> connect() {
        Config cfg = config;
        return Mono.defer(() -> {
            long start = System.nanoTime();
            InetSocketAddress remote = remote(cfg);
            InetSocketAddress local = cfg.local;
            if (!needsLookup(remote) && !needsLookup(local)) { // IP literals: nothing to look up, no thread hop
                return connectQueuing(cfg, lookUp(local, true), lookUp(remote, false), start,
                        cfg.options.connectTimeout(), false);
            }
            // names are resolved off the event loops (a lookup blocks) and count against the connect timeout
            Duration timeout = cfg.options.connectTimeout();
            return Mono.fromCallable(() -> new InetSocketAddress[] {lookUp(local, true), lookUp(remote, false)})
                    .subscribeOn(Schedulers.boundedElastic())
                    .timeout(timeout, Mono.error(() -> new RdmaConnectException(RdmaConnectException.Reason.TIMEOUT,
                            0, null, remote, false, "resolving the host name took longer than the connect timeout ("
                            + timeout.toMillis() + " ms)")))
                    .flatMap(a -> connectQueuing(cfg, a[0], a[1], start, timeout, true));
        }).doOnDiscard(RdmaConnection.class, RdmaConnection::dispose);
    }

    /** Back-off before asking an overloaded server again: 5 ms doubling to 160 ms, then ±50 % at random. */
    static long overloadBackoffNanos(long retries) {
        long base = Duration.ofMillis(5).toNanos() << Math.min(retries, 5);
        return base / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(base);
    }

    static boolean overloaded(Throwable e) {
        return e instanceof RdmaConnectException x && x.reason() == RdmaConnectException.Reason.REJECTED
                && x.rejectReason() == RejectReason.OVERLOADED;
    }

    /**
     * The least time an attempt after an overloaded refusal must have left, else the refusal stands: an attempt with a
     * few milliseconds left only times out, and a TIMEOUT would hide that the server said it was overloaded (a
     * back-off that overshot under load did that: {@code AdmissionTest}).
     */
    static final long MIN_RETRY_NANOS = Duration.ofMillis(50).toNanos();

    /** Attempts within the connect timeout counted from {@code start}; an overloaded server is asked again. */
    private static Mono<RdmaConnection> connectQueuing(Config cfg, InetSocketAddress local, InetSocketAddress remote,
            long start, Duration timeout, boolean lookedUp) {
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Throwable> refusal = new AtomicReference<>();
        return Mono.defer(() -> {
            if (attempts.getAndIncrement() == 0 && !lookedUp) {
                return connect(cfg, local, remote, timeout); // the first attempt has the whole timeout (and says so)
            }
            Duration left = timeout.minusNanos(System.nanoTime() - start);
            Throwable refused = refusal.get();
            if (refused != null && left.toNanos() < MIN_RETRY_NANOS / 2) { // the back-off overshot: no time to ask
                return Mono.error(refused);
            }
            return connect(cfg, local, remote, left.toMillis() < 1 ? Duration.ofMillis(1) : left);
        }).retryWhen(Retry.from(signals -> signals.concatMap(s -> {
            long backoff = overloadBackoffNanos(s.totalRetries());
            long left = timeout.toNanos() - (System.nanoTime() - start);
            if (!overloaded(s.failure()) || backoff + MIN_RETRY_NANOS > left) {
                return Mono.error(s.failure());
            }
            refusal.set(s.failure());
            LOG.debug("{} is overloaded; asking again in {} ms", remote, backoff / 1_000_000);
            return Mono.delay(Duration.ofNanos(backoff));
        })));
    }

    private static Mono<RdmaConnection> connect(Config cfg, InetSocketAddress local, InetSocketAddress remote,
            Duration timeout) {
        ConnectionOptions options = timeout.equals(cfg.options.connectTimeout()) ? cfg.options
                : cfg.options.withConnectTimeout(timeout);
        return Mono.create(sink -> {
            EventLoopGroup group = cfg.loops.get();
            if (cfg.hooks.metrics() != null) {
                cfg.hooks.metrics().registerCounters(group);
            }
            RdmaObservation observation = cfg.hooks.metrics() == null ? null
                    : cfg.hooks.metrics().observeConnect(remote, group.fabric().providerName(), sink.contextView());
            Attempt a = new Attempt(sink, cfg, remote, observation);
            if (cfg.hooks.wiretap() != null) {
                cfg.hooks.wiretap().cm("CONNECT", remote, local == null ? null : "from " + WireLog.format(local));
            }
            sink.onCancel(a::cancel);
            Connection c = Connection.connect(group.next(), local, remote, cfg.privateData, options,
                    new ConnectionBridge(cfg.hooks, a));
            a.started(c);
        });
    }

    /**
     * {@link #connect()} and wait (off the event loops) up to the connect timeout plus a second.
     *
     * @return the established connection
     * @throws IllegalStateException on an event loop thread, or when connecting takes longer than the wait
     * @throws RdmaConnectException when the connect fails
     */
    public RdmaConnection connectNow() {
        return connectNow(config.options.connectTimeout().plusSeconds(1));
    }

    /**
     * {@link #connect()} and wait up to {@code timeout}; never call it on an event loop.
     *
     * @param timeout the longest to wait
     * @return the established connection
     * @throws IllegalStateException on an event loop thread, or when connecting takes longer than {@code timeout}
     * @throws RdmaConnectException when the connect fails
     */
    public RdmaConnection connectNow(Duration timeout) {
        Blocking.check("connectNow");
        return connect().block(timeout);
    }

    /** The peer as configured: a host name stays unresolved here (it is looked up off the loops). */
    private static InetSocketAddress remote(Config c) {
        if (c.remote != null) {
            return c.remote;
        }
        if (c.host == null || c.port < 0) {
            throw new IllegalStateException("set remoteAddress(...) or host(...) and port(...) before connecting");
        }
        InetAddress literal = literal(c.host);
        return literal != null ? new InetSocketAddress(literal, c.port) : InetSocketAddress.createUnresolved(c.host,
                c.port);
    }

    private static boolean needsLookup(InetSocketAddress a) {
        return a != null && a.isUnresolved() && literal(a.getHostString()) == null;
    }

    private static InetAddress literal(String host) {
        try {
            return InetAddress.ofLiteral(host);
        } catch (IllegalArgumentException notALiteral) {
            return null;
        }
    }

    /** Resolves a name (blocking: never on a loop); an unknown host is a typed ADDR_ERROR. */
    private static InetSocketAddress lookUp(InetSocketAddress a, boolean local) {
        if (a == null || !a.isUnresolved()) {
            return a;
        }
        InetAddress ip = literal(a.getHostString());
        if (ip != null) {
            return new InetSocketAddress(ip, a.getPort());
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(a.getHostString()), a.getPort());
        } catch (UnknownHostException e) {
            throw new RdmaConnectException(RdmaConnectException.Reason.ADDR_ERROR, 0, null, a, false, "unknown "
                    + (local ? "local " : "") + "host '" + a.getHostString() + "': the name does not resolve to an IP "
                    + "address", e);
        }
    }

    /** One connect: reports the outcome exactly once, or closes a connection that nobody wants any more. */
    private static final class Attempt implements ConnectionBridge.Outcome {
        private static final int PENDING = 0;
        private static final int DONE = 1;
        private static final int CANCELLED = 2;

        private final MonoSink<RdmaConnection> sink;
        private final Config config;
        private final InetSocketAddress remote;
        private final RdmaObservation observation;
        private final long startNanos = System.nanoTime();
        private final AtomicInteger state = new AtomicInteger();
        private volatile Connection connection;

        Attempt(MonoSink<RdmaConnection> sink, Config config, InetSocketAddress remote, RdmaObservation observation) {
            this.sink = sink;
            this.config = config;
            this.remote = remote;
            this.observation = observation;
        }

        void started(Connection c) {
            connection = c;
            if (state.get() == CANCELLED) {
                c.close();
            }
        }

        @Override
        public void established(ReactiveConnection rc) {
            if (!state.compareAndSet(PENDING, DONE)) {
                rc.dispose();
                return;
            }
            record("SUCCESS", null);
            if (LOG.isDebugEnabled()) {
                LOG.debug("{} connected in {} ms", WireLog.prefix(rc), (System.nanoTime() - startNanos) / 1_000_000);
            }
            if (config.handler != null) {
                Context context = Context.of(sink.contextView());
                ConnectionHandlerSubscriber.run(rc, config.handler, observation == null ? context
                        : observation.context(context));
            }
            sink.success(rc);
        }

        @Override
        public void failed(Throwable error) {
            if (state.compareAndSet(PENDING, DONE)) {
                String status = error instanceof RdmaConnectException x ? x.reason().name() : "ERROR";
                record(status, error);
                if (config.hooks.wiretap() != null) {
                    config.hooks.wiretap().cm("CONNECT FAILED " + status, remote, error);
                }
                if (overloaded(error)) {
                    LOG.debug("connecting to {} failed: {}", WireLog.format(remote), error.toString()); // asked again
                } else if (error instanceof RdmaConnectException) { // typed: its message says what happened
                    LOG.warn("connecting to {} failed ({}): {}", WireLog.format(remote), status, error.getMessage());
                } else {
                    LOG.warn("connecting to {} failed", WireLog.format(remote), error);
                }
                sink.error(error);
            }
        }

        void cancel() {
            if (state.compareAndSet(PENDING, CANCELLED)) {
                record("CANCELLED", null);
                LOG.debug("connecting to {} cancelled", WireLog.format(remote));
                Connection c = connection;
                if (c != null) {
                    c.close();
                }
            }
        }

        private void record(String status, Throwable error) {
            RdmaMetricsRecorder m = config.hooks.metrics();
            if (m != null) {
                m.recordConnectTime(remote, Duration.ofNanos(System.nanoTime() - startNanos), status);
            }
            if (observation != null) {
                observation.stop(status, error);
            }
        }
    }
}
