package dev.ibex.samples.pubsub;

import dev.ibex.pubsub.PubSub;
import dev.ibex.pubsub.PublisherState;
import dev.ibex.pubsub.SubscriberStats;
import dev.ibex.pubsub.Topic;
import dev.ibex.pubsub.TopicPublisher;
import dev.ibex.pubsub.TopicSubscriber;
import dev.ibex.samples.cli.SoftRoceHost;
import dev.ibex.samples.tour.TourContext;
import dev.ibex.samples.tour.TourSection;
import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The tour's pub/sub section: a publisher and three subscribers, each a soft-roce "host" of its own on loopback
 * (127.0.0.4 publishes, .5 to .7 subscribe), one topic over UD multicast; subscriber 2 leaves a quarter of the way in
 * and re-joins. Prints the publish rate and, per subscriber, what it received, lost, got out of order and missed
 * while away, with one-way latency percentiles. (The multi-process version: {@code samples/port pubsub}.)
 */
public final class PubSubSection implements TourSection {
    static final String[] IPS = {"127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"};
    static final String TOPIC = "ticks";
    static final int SIZE = 64;

    @Override
    public String name() {
        return "pubsub";
    }

    @Override
    public String title() {
        return "UD multicast publish/subscribe: 1 publisher, 3 subscribers, one leaves and re-joins";
    }

    @Override
    public void run(TourContext tour) throws Exception {
        Duration step = tour.step();
        int n = tour.messages();
        int port = FreePort.on(IPS);
        List<SoftRoceHost> hosts = new ArrayList<>();
        try {
            for (int i = 0; i < IPS.length; i++) {
                hosts.add(new SoftRoceHost((i == 0 ? "pub" : "sub" + i), IPS[i], port, 8192));
            }
            List<SubscriberReport> reports = new ArrayList<>();
            for (int i = 1; i < IPS.length; i++) {
                TopicSubscriber s = pubsub(hosts.get(i), IPS[i], tour).subscriber(TOPIC).block(step);
                reports.add(new SubscriberReport("subscriber " + i, s, e -> { }));
            }
            PubSub publishing = pubsub(hosts.getFirst(), IPS[0], tour);
            Topic topic = publishing.topic(TOPIC);
            tour.say("topic \"%s\" on group %s: publisher %s, subscribers %s to %s, each its own soft-roce host",
                    TOPIC, topic.group().getAddress().getHostAddress(), IPS[0], IPS[1], IPS[IPS.length - 1]);
            long j0 = System.nanoTime();
            TopicPublisher pub = publishing.publisher(TOPIC).block(step);
            tour.say("publisher joined in %.1f ms; subscribers joined in %s", (System.nanoTime() - j0) / 1e6,
                    String.join(", ", reports.stream().map(r -> r.joinMillis).toList()));
            awaitAll(reports, PublisherState.LIVE, step);

            SubscriberReport mover = reports.get(1);
            Thread away = Thread.ofPlatform().daemon().name("subscriber-2-away").start(() -> {
                try {
                    while (mover.delivered < n / 4) {
                        Thread.sleep(1);
                    }
                    mover.subscriber.leave().block(step);
                    Thread.sleep(100);
                    mover.subscriber.join().block(step);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            // half, then (once subscriber 2 is back) the rest: it misses a stretch, not the end
            long p0 = System.nanoTime();
            PubSubSample.publish(pub, n / 2, SIZE).block(step);
            long p1 = System.nanoTime();
            away.join(step.toMillis());
            long p2 = System.nanoTime();
            PubSubSample.publish(pub, n - n / 2, SIZE).block(step);
            double seconds = ((p1 - p0) + (System.nanoTime() - p2)) / 1e9;
            tour.say("published %d x %d B in %.2f s: %.0f messages/s (rate limit %.0f/s)", n, SIZE, seconds,
                    n / seconds, tour.rate());
            pub.close().block(step);
            awaitAll(reports, PublisherState.CLOSED, step);
            for (SubscriberReport r : reports) {
                tour.say("%s", r.line());
                SubscriberStats s = r.subscriber.stats();
                if (s.received() + s.lost() + s.missedWhileAway() != n) {
                    throw new IllegalStateException("pub/sub check failed: " + s + " does not account for " + n);
                }
            }
            for (SubscriberReport r : reports) {
                r.subscriber.close().block(step);
            }
        } finally {
            hosts.forEach(SoftRoceHost::close);
        }
        int residue = hosts.stream().mapToInt(SoftRoceHost::residue).sum();
        if (residue != 0) {
            throw new IllegalStateException("pub/sub left " + residue + " resources open");
        }
        tour.say("closed all four hosts: every membership, QP and buffer released");
    }

    private static PubSub pubsub(SoftRoceHost host, String ip, TourContext tour) {
        return PubSub.create().runOn(host.loops()).host(ip).heartbeat(Duration.ofMillis(20)).rateLimit(tour.rate())
                .receiveWindow(1024, 256);
    }

    private static void awaitAll(List<SubscriberReport> reports, PublisherState state, Duration limit)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        for (SubscriberReport r : reports) {
            while (r.subscriber.publisherState() != state) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(r.name + " never saw its publisher " + state + ": "
                            + r.subscriber.stats());
                }
                Thread.sleep(2);
            }
        }
    }
}
