package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Joins UD multicast groups, the reactive way (an immutable builder): each {@link #join} binds a UD endpoint of its
 * own on {@link #host} and joins the group through the RDMA CM ({@code rdma_join_multicast}); the
 * {@link RdmaMembership} it emits receives the group's datagrams and sends to the group; disposing it leaves.
 *
 * <pre>{@code
 * RdmaMembership m = RdmaMulticast.create().host("192.168.1.3").join(new InetSocketAddress("239.1.2.3", 0))
 *         .block();
 * m.receive().map(DatagramMessage::asString).subscribe(System.out::println);
 * m.send(Flux.just("tick")).block();
 * m.dispose(); // leaves the group
 * }</pre>
 */
public final class RdmaMulticast {
    /** Joins and leaves: one logger name for the component. */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RdmaMulticast.class);


    /** {@code loop}: where the next join lands (the next loop of a group, or one pinned loop). */
    private record Config(Supplier<EventLoop> loop, String host, DatagramOptions options, int queue,
            boolean sendOnly, RdmaMetricsRecorder metrics) {}

    private final Config config;

    private RdmaMulticast(Config config) {
        this.config = config;
    }

    /**
     * Default options on the {@link RdmaLoops#global() default loops}; set {@link #host} before joining. The default
     * loops open the provider at the first join, so that join's time includes opening it: call
     * {@code RdmaLoops.global()} first, or {@link #runOn(EventLoopGroup)}, to time the join alone.
     *
     * @return a builder with default options; nothing is joined until {@link #join}
     */
    public static RdmaMulticast create() {
        return new RdmaMulticast(new Config(() -> RdmaLoops.global().next(), null, DatagramOptions.DEFAULT, -1, false,
                null));
    }

    /**
     * The local address (an address of the RDMA device that joins).
     *
     * @param host an IP address of a local RDMA device
     * @return a copy joining from {@code host}
     */
    public RdmaMulticast host(String host) {
        Objects.requireNonNull(host, "host");
        Config c = config;
        return new RdmaMulticast(new Config(c.loop, host, c.options, c.queue, c.sendOnly, c.metrics));
    }

    /**
     * Endpoint options (receive window, send queue depth, join deadline …).
     *
     * @param options the options of each membership's endpoint (default {@link DatagramOptions#DEFAULT})
     * @return a copy with those options
     */
    public RdmaMulticast options(DatagramOptions options) {
        Objects.requireNonNull(options, "options");
        Config c = config;
        return new RdmaMulticast(new Config(c.loop, c.host, options, c.queue, c.sendOnly, c.metrics));
    }

    /**
     * Receives kept posted.
     *
     * @param receives how many receives each membership keeps posted, positive
     * @return a copy with that receive window
     * @throws IllegalArgumentException when {@code receives} is not positive
     */
    public RdmaMulticast receiveWindow(int receives) {
        return options(config.options.withReceiveWindow(receives));
    }

    /**
     * How many datagrams may wait for demand before arrivals are dropped and counted (below the window).
     *
     * @param datagrams how many datagrams may wait, 0 or more
     * @return a copy with that queue bound
     * @throws IllegalArgumentException when {@code datagrams} is negative
     */
    public RdmaMulticast receiveQueue(int datagrams) {
        Config c = config;
        return new RdmaMulticast(new Config(c.loop, c.host, c.options, RdmaDatagram.checkQueue(datagrams),
                c.sendOnly, c.metrics));
    }

    /**
     * How long a join may take before it fails with TIMEOUT.
     *
     * @param timeout the longest a join may take, positive
     * @return a copy with that timeout
     * @throws IllegalArgumentException when {@code timeout} is not positive
     */
    public RdmaMulticast joinTimeout(Duration timeout) {
        return options(config.options.withDeadline(timeout));
    }

    /**
     * Join send-only (send to the group without receiving its traffic): no IGMP join, no attachment (so it does not
     * count against the device's group limit) and a single receive posted instead of a window.
     *
     * @param sendOnly {@code true} for send-only memberships, {@code false} (the default) for full ones
     * @return a copy joining that way
     */
    public RdmaMulticast sendOnly(boolean sendOnly) {
        Config c = config;
        return new RdmaMulticast(new Config(c.loop, c.host, c.options, c.queue, sendOnly, c.metrics));
    }

    /**
     * Runs on {@code group} (the caller opened it and closes it).
     *
     * @param group the event loops memberships run on, one after the other
     * @return a copy that runs on {@code group}
     */
    public RdmaMulticast runOn(EventLoopGroup group) {
        Objects.requireNonNull(group, "group");
        Config c = config;
        return new RdmaMulticast(new Config(group::next, c.host, c.options, c.queue, c.sendOnly, c.metrics));
    }

    /**
     * Runs every join on {@code loop} (one of a group the caller opened and closes): memberships that must share
     * loop-confined state — one subscriber's successive joins, a publisher and its timers — stay on one thread.
     *
     * @param loop the event loop every membership runs on
     * @return a copy that runs on {@code loop}
     */
    public RdmaMulticast runOn(EventLoop loop) {
        Objects.requireNonNull(loop, "loop");
        Config c = config;
        return new RdmaMulticast(new Config(() -> loop, c.host, c.options, c.queue, c.sendOnly, c.metrics));
    }

    /**
     * Reports each membership's join (time and outcome), datagrams and bytes sent and received, failed sends, drops,
     * leaves and the memberships open now to {@code recorder} ({@link RdmaMetricsRecorder#datagramMetrics});
     * {@code null} turns it off.
     *
     * @param recorder the recorder, or {@code null}
     * @return a new builder
     */
    public RdmaMulticast metrics(RdmaMetricsRecorder recorder) {
        Config c = config;
        return new RdmaMulticast(new Config(c.loop, c.host, c.options, c.queue, c.sendOnly, recorder));
    }

    /**
     * Turns metrics on or off, as reactor-netty's {@code metrics(true)}: on, the recorder the
     * {@link RdmaMetricsRecorderProvider} on the path makes for {@code "multicast"} (with {@code ibex-micrometer}:
     * meters {@code ibex.rdma.multicast.*} in Micrometer's global registry).
     *
     * @param enable on or off
     * @return a new builder
     * @throws UnsupportedOperationException when enabling and no provider is on the path
     */
    public RdmaMulticast metrics(boolean enable) {
        return metrics(enable ? RdmaMetricsRecorderProvider.load("multicast") : null);
    }

    /**
     * Joins {@code group} when subscribed: emits the membership (on its loop) once joined, or fails
     * ({@code IllegalArgumentException} for a non-multicast address, {@code RdmaConnectException} MULTICAST_ERROR
     * or TIMEOUT when the fabric refuses or does not answer, {@code RdmaException} when the host has no device).
     * Cancelling before that leaves and releases everything.
     *
     * @param group the group: an IP multicast address
     * @return a Mono that emits the joined membership, or fails as described above
     */
    public Mono<RdmaMembership> join(InetSocketAddress group) {
        Objects.requireNonNull(group, "group");
        Config c = config;
        return Mono.<RdmaMembership>create(sink -> {
            if (group.getAddress() == null || !group.getAddress().isMulticastAddress()) {
                throw new IllegalArgumentException(group + " is not a multicast group address");
            }
            // a send-only member receives nothing: one receive posted (a UD QP needs one), not a window of buffers
            DatagramOptions options = c.sendOnly ? c.options.withReceiveWindow(1) : c.options;
            ReactiveDatagram d = new ReactiveDatagram(c.loop.get(), group, c.sendOnly,
                    c.sendOnly ? 0 : RdmaDatagram.queue(c.queue, options), null, c.metrics);
            d.start(RdmaDatagram.address(c.host, 0), options, sink);
        }).doOnSuccess(m -> {
            if (LOG.isDebugEnabled()) {
                LOG.debug("[{} {}] joined {}{}", m.loop(), c.host, WireLog.format(group), c.sendOnly ? " send-only" : "");
                m.onDispose().subscribe(null, e -> LOG.debug("[{} {}] left {}: {}", m.loop(), c.host,
                        WireLog.format(group), e.toString()), () -> LOG.debug("[{} {}] left {}", m.loop(), c.host,
                        WireLog.format(group)));
            }
        }).doOnError(e -> LOG.warn("joining {} from {} failed: {}", WireLog.format(group), c.host, e.toString()))
                .doOnDiscard(RdmaMembership.class, RdmaMembership::dispose);
    }

    /**
     * {@link #join} and wait up to the join deadline plus a second; never on an event loop.
     *
     * @param group the group: an IP multicast address
     * @return the joined membership
     * @throws IllegalStateException on an event loop thread, or when joining takes longer than the wait
     * @throws IllegalArgumentException when {@code group} is not a multicast address
     * @throws dev.ibex.cm.RdmaConnectException when the fabric refuses the join or does not answer in time
     */
    public RdmaMembership joinNow(InetSocketAddress group) {
        Blocking.check("joinNow");
        return join(group).block(config.options.deadline().plusSeconds(1));
    }
}
