package dev.ibex.micrometer;

import dev.ibex.cm.reactive.RdmaDatagramMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The meters of one set of datagram tags ({@code provider}, {@code device}, {@code loop}, and {@code group} when asked
 * for), shared by every endpoint or membership that has those tags, and the per-endpoint {@link Handle} that records
 * into them. Looked up once per endpoint, so recording a datagram is a field read and the meter's own update.
 * Thread-safe.
 */
final class DatagramMeters {
    private final MeterRegistry registry;
    private final String name;
    private final Tags tags;
    private final boolean multicast;
    final DistributionSummary received;
    final DistributionSummary sent;
    final Counter errors;
    final DropSum drops;
    final AtomicLong active;
    private final Counter leaves;
    private final Map<String, Timer> joins = new ConcurrentHashMap<>();

    /** @param name {@code ibex.rdma.datagram} or {@code ibex.rdma.multicast} */
    DatagramMeters(MeterRegistry registry, String name, Tags tags, boolean multicast) {
        this.registry = registry;
        this.name = name;
        this.tags = tags;
        this.multicast = multicast;
        String what = multicast ? "membership" : "endpoint";
        received = DistributionSummary.builder(name + ".data.received").baseUnit("bytes")
                .description("Payload bytes of each datagram delivered to the application").tags(tags)
                .register(registry);
        sent = DistributionSummary.builder(name + ".data.sent").baseUnit("bytes")
                .description("Payload bytes of each datagram posted").tags(tags).register(registry);
        errors = Counter.builder(name + ".errors").description("Failed sends (not flushes) and broken " + what + "s")
                .tags(tags).register(registry);
        String dropsName = name + ".drops";
        drops = SharedState.of(registry, dropsName, tags, DropSum::new);
        FunctionCounter.builder(dropsName, drops, DropSum::read)
                .description("Datagrams that reached an " + what + " and were not delivered (its drops())")
                .tags(tags).register(registry);
        String activeName = name + (multicast ? ".memberships.active" : ".endpoints.active");
        active = SharedState.of(registry, activeName, tags, AtomicLong::new);
        Gauge.builder(activeName, active, AtomicLong::get).strongReference(true)
                .description(multicast ? "Memberships joined and not left" : "Datagram endpoints bound and not closed")
                .tags(tags).register(registry);
        leaves = multicast ? Counter.builder(name + ".leaves").description("Memberships left (after a join)")
                .tags(tags).register(registry) : null;
    }

    private Timer join(String status) {
        Timer t = joins.get(status);
        return t != null ? t : joins.computeIfAbsent(status, s -> Timer.builder(name + ".join.time")
                .description("Time from join() to the join's outcome").tags(tags.and(
                        MicrometerRdmaMetricsRecorder.STATUS, s)).register(registry));
    }

    /** A handle for one endpoint; a plain endpoint counts as open from now on, a membership once joined. */
    Handle open(LongSupplier endpointDrops) {
        drops.open(endpointDrops);
        Handle h = new Handle(endpointDrops);
        if (!multicast) {
            active.incrementAndGet();
            h.counted = true;
        }
        return h;
    }

    /** One endpoint's or membership's view: loop-confined like the calls the endpoint makes. */
    final class Handle implements RdmaDatagramMetrics {
        private final LongSupplier endpointDrops;
        private boolean counted;
        private boolean closed;

        Handle(LongSupplier endpointDrops) {
            this.endpointDrops = endpointDrops;
        }

        @Override
        public void recordDataReceived(long bytes) {
            received.record(bytes);
        }

        @Override
        public void recordDataSent(long bytes) {
            sent.record(bytes);
        }

        @Override
        public void incrementErrorsCount() {
            errors.increment();
        }

        @Override
        public void recordJoinTime(Duration time, String status) {
            join(status).record(time);
            if (multicast && "SUCCESS".equals(status) && !counted && !closed) {
                active.incrementAndGet();
                counted = true;
            }
        }

        @Override
        public void closed() {
            if (closed) {
                return;
            }
            closed = true;
            drops.close(endpointDrops);
            if (counted) {
                counted = false;
                active.decrementAndGet();
                if (leaves != null) {
                    leaves.increment();
                }
            }
        }
    }
}
