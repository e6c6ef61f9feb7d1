package dev.ibex.samples.pubsub;

import dev.ibex.pubsub.SubscriberStats;
import dev.ibex.pubsub.TopicEvent;
import dev.ibex.pubsub.TopicMessage;
import dev.ibex.pubsub.TopicSubscriber;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Locale;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * What one subscriber of the pub/sub sample records: every message's one-way latency (the publisher writes
 * {@link System#nanoTime()} into the first 8 bytes; processes on one host share that clock) in an HdrHistogram, and
 * the library's own counts. Messages arrive on the subscriber's loop, the only writer; read the report after the run.
 */
final class SubscriberReport {
    static final ValueLayout.OfLong STAMP = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final String name;
    final TopicSubscriber subscriber;
    final Histogram latencyNanos = new Histogram(3_600_000_000_000L, 3);
    volatile long delivered;
    volatile long leftAt = -1;
    volatile double rejoinMillis = -1;
    volatile String joinMillis = "?";

    /** Starts recording {@code subscriber}'s messages; {@code events} sees its events too. */
    SubscriberReport(String name, TopicSubscriber subscriber, Consumer<TopicEvent> events) {
        this.name = name;
        this.subscriber = subscriber;
        subscriber.events().subscribe(e -> {
            if (e.kind() == TopicEvent.Kind.LEFT) {
                leftAt = e.sequence();
            } else if (e.kind() == TopicEvent.Kind.JOINED && e.count() > 1) {
                rejoinMillis = e.elapsed().toNanos() / 1e6;
            } else if (e.kind() == TopicEvent.Kind.JOINED) {
                joinMillis = String.format(Locale.ROOT, "%.1f ms", e.elapsed().toNanos() / 1e6);
            }
            events.accept(e);
        });
        subscriber.messages().subscribe(this::record);
    }

    private void record(TopicMessage m) {
        if (m.length() >= 8) {
            latencyNanos.recordValue(Math.max(0, m.arrivalNanos() - m.payload().get(STAMP, 0)));
        }
        delivered++;
    }

    /** One line: the counts and the latency percentiles. */
    String line() {
        return line(name, subscriber.stats(), latencyNanos, leftAt, rejoinMillis);
    }

    static String line(String name, SubscriberStats s, Histogram h, long leftAt, double rejoinMillis) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "%s: received %d, lost %d, out of order %d, duplicates %d", name, s.received(), s.lost(),
                s.outOfOrder(), s.duplicates()));
        if (leftAt >= 0) {
            b.append(String.format(Locale.ROOT, ", left at #%d and re-joined in %.1f ms (missed %d while away)",
                    leftAt, rejoinMillis, s.missedWhileAway()));
        }
        if (h.getTotalCount() > 0) {
            b.append(String.format(Locale.ROOT, "; latency p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us",
                    h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                    h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3));
        }
        return b.toString();
    }
}
