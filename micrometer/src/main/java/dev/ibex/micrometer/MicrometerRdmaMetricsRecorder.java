package dev.ibex.micrometer;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.RdmaDatagramMetrics;
import dev.ibex.cm.reactive.RdmaMetricsRecorder;
import dev.ibex.cm.reactive.RdmaObservation;
import dev.ibex.cm.spi.RdmaCounter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.util.context.ContextView;

/**
 * An {@link RdmaMetricsRecorder} that records into a Micrometer {@link MeterRegistry}, shaped like reactor-netty's
 * {@code MicrometerChannelMetricsRecorder} (names {@code <prefix>.data.received}, {@code .data.sent}, {@code .errors},
 * {@code .connect.time} with a {@code status} tag). Meters of a server are named {@code ibex.rdma.server.*}, of a
 * client {@code ibex.rdma.client.*}:
 *
 * <ul>
 *   <li>{@code connect.time} (client; timer; tag {@code status}: SUCCESS, a {@code RdmaConnectException.Reason} name,
 *       ERROR or CANCELLED);
 *   <li>{@code accept.time} (server; timer from request to decision; tag {@code status}: ACCEPTED or REJECTED);
 *   <li>{@code data.received}, {@code data.sent} (distribution summaries, base unit bytes: one record per message
 *       delivered to the application, per SEND or RDMA WRITE posted);
 *   <li>{@code errors} (counter: failed operations and broken connections);
 *   <li>{@code connections.active} (gauge: connections established and not yet closed).
 * </ul>
 *
 * <p>Datagram endpoints ({@code RdmaDatagram}) and multicast memberships ({@code RdmaMulticast}) with this recorder
 * record into {@code ibex.rdma.datagram.*} and {@code ibex.rdma.multicast.*}, tagged {@code provider},
 * {@code device}, {@code loop} (and {@code group} for memberships when the per-peer tag was asked for):
 * {@code data.received}, {@code data.sent}, {@code errors}, {@code drops} (function counter of the endpoints'
 * {@code drops()}), {@code endpoints.active} / {@code memberships.active} (gauges), and for memberships
 * {@code join.time} (timer, tag {@code status}) and {@code leaves}.
 *
 * <p>With an {@link ObservationRegistry} ({@link #observationRegistry}, or {@link RdmaObservations#registry} for the
 * recorders {@code metrics(true)} makes) connects and accepted connections are also Micrometer {@code Observation}s,
 * children of the observation in the subscriber's Reactor {@code Context}: see {@link RdmaObservations}.
 *
 * <p>Tags are bounded: none but {@code status} by default; {@code remote.address} (host:port of the peer) only when
 * asked for. The counters of the loops a server or client runs on ({@link EventLoopGroup#counters()}: the provider's
 * retransmissions, RNR NAKs, drops, path migrations … and the loops' credit stalls) become {@link FunctionCounter}s
 * named {@code ibex.rdma.<counter>} with their {@code provider}/{@code device}/{@code port}/{@code loop} tags, read
 * only when the registry is scraped, and are removed when the group terminates.
 *
 * <p>Recording allocates nothing: without the remote-address tag every meter is a field; with it, one map lookup
 * per call (a new peer registers its meters once).
 *
 * <p>Threading: every method may be called from any thread (event loops call the {@code record*} methods).
 */
public final class MicrometerRdmaMetricsRecorder implements RdmaMetricsRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(MicrometerRdmaMetricsRecorder.class);

    /** Every meter name starts with it. */
    public static final String PREFIX = "ibex.rdma.";
    /** The tag of the remote address (when enabled). */
    public static final String REMOTE_ADDRESS = "remote.address";
    /** The tag of connect and accept outcomes. */
    public static final String STATUS = "status";

    private final MeterRegistry registry;
    private final String component;
    private final String name;
    private final boolean remoteTag;
    /** {@code null}: {@link RdmaObservations#registry()}, read per connect. */
    private final ObservationRegistry observations;
    private final Meters all;
    /** Connections open now ({@code null} for the datagram and multicast components). */
    private final AtomicLong active;
    private final Map<Tags, DatagramMeters> datagramMeters = new ConcurrentHashMap<>();
    private final Map<InetSocketAddress, Meters> byPeer = new ConcurrentHashMap<>();
    private final Map<String, Timer> connectTimers = new ConcurrentHashMap<>();
    private final Map<String, Timer> acceptTimers = new ConcurrentHashMap<>();
    private final Map<EventLoopGroup, Registered> groups = new ConcurrentHashMap<>();

    /** The per-peer (or, without the tag, only) set of data and error meters. */
    private record Meters(DistributionSummary received, DistributionSummary sent, Counter errors) {}

    /** A group's counters, kept strongly (Micrometer holds function counters' objects weakly) and its meters. */
    private record Registered(List<RdmaCounter> counters, List<Meter> meters) {}

    private MicrometerRdmaMetricsRecorder(MeterRegistry registry, String component, boolean remoteTag,
            ObservationRegistry observations) {
        this.registry = registry;
        this.component = component;
        this.name = PREFIX + component;
        this.remoteTag = remoteTag;
        this.observations = observations;
        boolean datagrams = component.equals("datagram") || component.equals("multicast");
        this.all = remoteTag || datagrams ? null : meters(Tags.empty());
        if (datagrams) {
            this.active = null;
        } else {
            String gauge = name + ".connections.active";
            this.active = SharedState.of(registry, gauge, Tags.empty(), AtomicLong::new);
            Gauge.builder(gauge, active, AtomicLong::get).strongReference(true)
                    .description("Connections established and not yet closed").register(registry);
        }
    }

    /**
     * A recorder for {@code registry}.
     *
     * @param registry the registry to register the meters in
     * @param component {@code "server"} or {@code "client"} (the meters' name is {@code ibex.rdma.<component>.*})
     * @param remoteAddressTag whether to tag data, error, connect and accept meters with the peer's address, and
     *     multicast meters with the group: one time series per peer or group, so only with few of them
     * @return the recorder
     * @throws IllegalArgumentException when {@code component} is empty or not lower case
     */
    public static MicrometerRdmaMetricsRecorder create(MeterRegistry registry, String component,
            boolean remoteAddressTag) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(component, "component");
        if (component.isEmpty() || !component.equals(component.toLowerCase(java.util.Locale.ROOT))) {
            throw new IllegalArgumentException("the component is a lower-case name like \"server\", got '"
                    + component + "'");
        }
        return new MicrometerRdmaMetricsRecorder(registry, component, remoteAddressTag, null);
    }

    /**
     * This recorder (same registry, component and tags) observing connects and accepted connections into
     * {@code observationRegistry} instead of {@link RdmaObservations#registry()}.
     *
     * @param observationRegistry where the {@code ibex.rdma.client.connect} and {@code ibex.rdma.server.connection}
     *     observations go
     * @return a new recorder (it shares this one's meters)
     */
    public MicrometerRdmaMetricsRecorder observationRegistry(ObservationRegistry observationRegistry) {
        Objects.requireNonNull(observationRegistry, "observationRegistry");
        return new MicrometerRdmaMetricsRecorder(registry, component, remoteTag, observationRegistry);
    }

    private ObservationRegistry observations() {
        return observations != null ? observations : RdmaObservations.registry();
    }

    private Meters meters(Tags tags) {
        return new Meters(
                DistributionSummary.builder(name + ".data.received").baseUnit("bytes")
                        .description("Bytes of each message delivered to the application").tags(tags)
                        .register(registry),
                DistributionSummary.builder(name + ".data.sent").baseUnit("bytes")
                        .description("Bytes of each SEND or RDMA WRITE posted").tags(tags).register(registry),
                Counter.builder(name + ".errors").description("Failed operations and broken connections").tags(tags)
                        .register(registry));
    }

    private Meters metersOf(InetSocketAddress remote) {
        if (!remoteTag) {
            return all;
        }
        Meters m = byPeer.get(remote);
        return m != null ? m : byPeer.computeIfAbsent(remote, r -> meters(Tags.of(REMOTE_ADDRESS, address(r))));
    }

    private static String address(InetSocketAddress a) {
        if (a == null) {
            return "unknown";
        }
        return (a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString()) + ":" + a.getPort();
    }

    private Timer timer(Map<String, Timer> cache, String meter, String description, InetSocketAddress remote,
            String status) {
        String key = remoteTag ? status + "|" + address(remote) : status;
        Timer t = cache.get(key);
        if (t == null) {
            Tags tags = Tags.of(STATUS, status);
            if (remoteTag) {
                tags = tags.and(REMOTE_ADDRESS, address(remote));
            }
            Tags finalTags = tags;
            t = cache.computeIfAbsent(key, k -> Timer.builder(name + meter).description(description).tags(finalTags)
                    .register(registry));
        }
        return t;
    }

    @Override
    public void recordConnectTime(InetSocketAddress remote, Duration time, String status) {
        timer(connectTimers, ".connect.time", "Time from connect() to the connection's outcome", remote, status)
                .record(time);
    }

    @Override
    public void recordAcceptDecision(InetSocketAddress remote, Duration decisionTime, String status) {
        timer(acceptTimers, ".accept.time", "Time from a connection request to the accept policy's decision", remote,
                status).record(decisionTime);
    }

    @Override
    public void recordDataReceived(InetSocketAddress remote, long bytes) {
        metersOf(remote).received().record(bytes);
    }

    @Override
    public void recordDataSent(InetSocketAddress remote, long bytes) {
        metersOf(remote).sent().record(bytes);
    }

    @Override
    public void incrementErrorsCount(InetSocketAddress remote) {
        metersOf(remote).errors().increment();
    }

    @Override
    public void recordConnectionOpened(InetSocketAddress remote) {
        if (active != null) {
            active.incrementAndGet();
        }
    }

    @Override
    public void recordConnectionClosed(InetSocketAddress remote) {
        if (active != null) {
            active.decrementAndGet();
        }
    }

    /**
     * The meters of a datagram endpoint ({@code ibex.rdma.datagram.*}) or membership ({@code ibex.rdma.multicast.*})
     * tagged {@code provider}, {@code device}, {@code loop} (and {@code group} with the per-peer tag), looked up once
     * here so that recording a datagram looks nothing up.
     */
    @Override
    public RdmaDatagramMetrics datagramMetrics(RdmaDatagramMetrics.Endpoint endpoint, LongSupplier drops) {
        boolean multicast = endpoint.group() != null;
        Tags tags = Tags.of("provider", endpoint.provider(), "device", endpoint.device(), "loop", endpoint.loop());
        if (multicast && remoteTag) {
            tags = tags.and("group", endpoint.group().getAddress().getHostAddress());
        }
        Tags key = multicast ? tags.and("kind", "multicast") : tags;
        Tags meterTags = tags;
        DatagramMeters m = datagramMeters.computeIfAbsent(key, k -> new DatagramMeters(registry,
                PREFIX + (multicast ? "multicast" : "datagram"), meterTags, multicast));
        return m.open(drops);
    }

    @Override
    public RdmaObservation observeConnect(InetSocketAddress remote, String provider, ContextView context) {
        return MicrometerRdmaObservation.start(observations(), RdmaObservations.CLIENT_CONNECT, "rdma connect", remote,
                provider, context);
    }

    @Override
    public RdmaObservation observeConnection(InetSocketAddress remote, String provider, ContextView context) {
        return MicrometerRdmaObservation.start(observations(), RdmaObservations.SERVER_CONNECTION, "rdma accept",
                remote, provider, context);
    }

    /**
     * Registers {@code group}'s counters ({@link EventLoopGroup#counters()}) once, as function counters read at scrape
     * time, and removes them when the group terminates. Two groups whose counters have the same names and tags (the
     * same provider, device and loop names) share the first group's meters.
     */
    @Override
    public void registerCounters(EventLoopGroup group) {
        if (groups.containsKey(group) || group.isShuttingDown()) {
            return;
        }
        Registered[] made = new Registered[1];
        groups.computeIfAbsent(group, g -> made[0] = register(g));
        if (made[0] != null) { // outside the map's lock: a terminated group unregisters at once
            group.terminationFuture().whenComplete((v, e) -> unregister(group));
        }
    }

    private Registered register(EventLoopGroup g) {
        List<RdmaCounter> counters = g.counters();
        List<Meter> meters = new ArrayList<>(counters.size());
        for (RdmaCounter c : counters) {
            Tags tags = Tags.empty();
            for (Map.Entry<String, String> t : c.tags().entrySet()) {
                tags = tags.and(t.getKey(), t.getValue());
            }
            meters.add(FunctionCounter.builder(PREFIX + c.name(), c, RdmaCounter::read).description(c.description())
                    .tags(tags).register(registry));
        }
        LOG.debug("registered {} counters of {}", meters.size(), g.fabric().providerName());
        return new Registered(counters, meters);
    }

    private void unregister(EventLoopGroup g) {
        Registered r = groups.remove(g);
        if (r != null) {
            for (Meter m : r.meters()) {
                registry.remove(m);
            }
        }
    }
}
