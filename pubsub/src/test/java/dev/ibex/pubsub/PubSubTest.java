package dev.ibex.pubsub;

import static dev.ibex.pubsub.SoftHosts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.reactive.ReleasablePayload;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Pub/sub on soft-roce in one JVM: a publisher host and subscriber hosts, each a fabric on its own address. */
class PubSubTest {
    final SoftHosts hosts = new SoftHosts(4);
    final List<Disposable> cleanup = new ArrayList<>();

    @AfterEach
    void close() {
        try {
            cleanup.forEach(Disposable::dispose);
            hosts.awaitQuiet();
        } finally {
            hosts.close();
        }
    }

    <T extends Disposable> T closing(T d) {
        cleanup.add(d);
        return d;
    }

    /** Collects the sequence numbers and payloads a subscriber's stream delivers. */
    static final class Collected {
        final List<Long> sequences = new CopyOnWriteArrayList<>();
        final List<String> payloads = new CopyOnWriteArrayList<>();

        Collected(TopicSubscriber s) {
            s.messages().subscribe(m -> {
                sequences.add(m.sequence());
                payloads.add(m.asString());
            });
        }
    }

    @Test
    void threeSubscribersGetEveryMessageInOrderWithExactCounts() {
        List<TopicSubscriber> subs = IntStream.range(1, 4)
                .mapToObj(i -> closing(hosts.pubsub(i).subscriberNow("prices"))).toList();
        List<Collected> got = subs.stream().map(Collected::new).toList();
        List<List<TopicEvent>> events = subs.stream().map(s -> {
            List<TopicEvent> l = new CopyOnWriteArrayList<>();
            s.events().subscribe(l::add);
            return l;
        }).toList();
        // paced: an unpaced burst larger than a subscriber's receive window is lost at its receive queue (counted)
        TopicPublisher pub = closing(hosts.pubsub(0).rateLimit(2000).publisherNow("prices"));
        assertThat(pub.topic()).isEqualTo(hosts.pubsub(0).topic("prices"));
        assertThat(pub.maxPayload()).as("path MTU 4096 less the header").isEqualTo(4096 - FrameHeader.LENGTH);
        await().atMost(WAIT).until(() -> subs.stream().allMatch(s -> s.publisherState() == PublisherState.LIVE));

        int n = 2000;
        pub.publish(Flux.range(1, n).map(i -> "tick " + i)).block(WAIT);
        assertThat(pub.sequence()).isEqualTo(n);
        for (int i = 0; i < subs.size(); i++) {
            Collected c = got.get(i);
            TopicSubscriber sub = subs.get(i);
            await().atMost(WAIT).untilAsserted(() -> assertThat(c.sequences).as(sub.stats().toString()).hasSize(n));
            assertThat(c.sequences).isEqualTo(LongsFrom1.to(n));
            assertThat(c.payloads.getFirst()).isEqualTo("tick 1");
            assertThat(c.payloads.getLast()).isEqualTo("tick " + n);
            SubscriberStats s = subs.get(i).stats();
            assertThat(s.received()).isEqualTo(n);
            assertThat(s.lost() + s.duplicates() + s.outOfOrder() + s.overruns() + s.stale()).as(s.toString()).isZero();
            assertThat(s.epoch()).isEqualTo(pub.epoch());
            assertThat(s.heartbeats()).isPositive();
            // (a loaded machine may also let 100 ms pass without a heartbeat: SILENT, then RESUMED)
            assertThat(events.get(i)).extracting(TopicEvent::kind).startsWith(TopicEvent.Kind.JOINED)
                    .containsSubsequence(TopicEvent.Kind.JOINED, TopicEvent.Kind.HEARD);
        }
        pub.close().block(WAIT);
        for (TopicSubscriber s : subs) {
            await().atMost(WAIT).until(() -> s.publisherState() == PublisherState.CLOSED);
        }
        assertThat(events.getFirst().getLast()).satisfies(e -> {
            assertThat(e.kind()).isEqualTo(TopicEvent.Kind.CLOSED);
            assertThat(e.sequence()).isEqualTo(n);
        });
    }

    @Test
    void injectedLossIsCountedExactlyAndTailLossIsRevealedByTheNextHeartbeat() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("loss"));
        Collected got = new Collected(sub);
        DataFrameDrops drops = new DataFrameDrops(FrameKind.DATA, 0.05, 42);
        DataFrameDrops beats = new DataFrameDrops(FrameKind.HEARTBEAT, 0.2, 7);
        TopicPublisher pub = closing(hosts.pubsub(0).rateLimit(2000).publisherNow("loss"));
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.LIVE);
        hosts.soft(1).faults().onReceive().dropIf((a, b, c, d, p, l) -> drops.test(a, b, c, d, p, l)
                || beats.test(a, b, c, d, p, l));
        int n = 3000;
        drops.always = n; // the very last message is lost: only a heartbeat can tell
        pub.publish(Flux.range(1, n).map(i -> "m" + i)).block(WAIT);
        await().atMost(WAIT).untilAsserted(() -> assertThat(sub.stats().highest()).isEqualTo(n));
        hosts.soft(1).faults().reset();
        SubscriberStats s = sub.stats();
        assertThat(drops.dropped).as("injected").hasSizeGreaterThan(50);
        assertThat(s.lost()).as(s.toString()).isEqualTo(drops.dropped.size());
        assertThat(s.received()).isEqualTo(n - drops.dropped.size());
        assertThat(got.sequences).doesNotContainAnyElementsOf(drops.dropped).hasSize(n - drops.dropped.size());
        assertThat(s.duplicates() + s.outOfOrder()).isZero();
        await().atMost(WAIT).untilAsserted(() -> assertThat(sub.stats().heartbeatsLost())
                .isGreaterThanOrEqualTo(beats.dropped.size() - 1)); // the last one dropped shows at the next
        assertThat(sub.stats().heartbeatsLost()).isLessThanOrEqualTo(beats.dropped.size());
    }

    @Test
    void duplicatesAreNotDeliveredTwiceAndReorderedMessagesCountAsLateNotLost() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("dups"));
        Collected got = new Collected(sub);
        TopicPublisher pub = closing(hosts.pubsub(0).rateLimit(2000).publisherNow("dups"));
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.LIVE);
        hosts.soft(1).faults().onReceive().duplicate(0.05).reorder(0.05, Duration.ofMillis(5));
        int n = 2000;
        pub.publish(Flux.range(1, n).map(i -> "m" + i)).block(WAIT);
        await().atMost(WAIT).untilAsserted(() -> assertThat(sub.stats().highest()).isEqualTo(n));
        await().atMost(WAIT).untilAsserted(() -> assertThat(got.sequences).as(sub.stats().toString())
                .hasSize((int) sub.stats().received()));
        hosts.soft(1).faults().reset();
        SubscriberStats s = sub.stats();
        assertThat(s.received() + s.lost()).as(s.toString()).isEqualTo(n);
        assertThat(s.lost()).as("nothing was dropped: at most a receive queue ran short").isLessThan(n / 100);
        assertThat(s.duplicates()).isPositive();
        assertThat(s.outOfOrder()).isPositive();
        assertThat(got.sequences).doesNotHaveDuplicates().hasSize((int) s.received());
    }

    @Test
    void leaveAndRejoinUnderTrafficKeepTheStatsAndCountWhatWasMissedWhileAway() {
        TopicSubscriber steady = closing(hosts.pubsub(1).subscriberNow("flow"));
        TopicSubscriber mover = closing(hosts.pubsub(2).subscriberNow("flow"));
        Collected steadyGot = new Collected(steady);
        Collected moverGot = new Collected(mover);
        TopicPublisher pub = closing(hosts.pubsub(0).rateLimit(2000).publisherNow("flow"));
        await().atMost(WAIT).until(() -> mover.publisherState() == PublisherState.LIVE
                && steady.publisherState() == PublisherState.LIVE);
        int n = 1600;
        Mono<Void> sending = pub.publish(Flux.range(1, n).map(i -> "m" + i)).cache();
        sending.subscribe();
        await().atMost(WAIT).until(() -> moverGot.sequences.size() >= 200);
        mover.leave().block(WAIT);
        assertThat(mover.publisherState()).isEqualTo(PublisherState.AWAY);
        assertThat(mover.isJoined()).isFalse();
        long atLeave = mover.stats().received();
        await().atMost(WAIT).until(() -> pub.sequence() >= atLeave + 200);
        assertThat(mover.join().block(WAIT)).isSameAs(mover);
        assertThatThrownBy(() -> mover.join().block(WAIT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("joined");
        sending.block(WAIT);
        await().atMost(WAIT).until(() -> steadyGot.sequences.size() == n);
        await().atMost(WAIT).until(() -> mover.stats().highest() == n);
        SubscriberStats s = mover.stats();
        assertThat(s.joins()).isEqualTo(2);
        assertThat(s.lost()).as(s.toString()).isZero();
        assertThat(s.missedWhileAway()).isGreaterThanOrEqualTo(200);
        assertThat(s.received() + s.missedWhileAway()).isEqualTo(n);
        assertThat(moverGot.sequences).as("one stream across the re-join").hasSize((int) s.received())
                .isSorted().doesNotHaveDuplicates().endsWith((long) n);
        assertThat(steady.stats().received()).isEqualTo(n);
    }

    @Test
    void aRejoinAfterThePublisherStoppedSaysSoInsteadOfWaitingQuietly() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("gone"));
        List<TopicEvent> events = new CopyOnWriteArrayList<>();
        sub.events().subscribe(events::add);
        TopicPublisher pub = hosts.pubsub(0).publisherNow("gone");
        pub.publish(Flux.range(1, 10).map(i -> "m" + i)).block(WAIT);
        await().atMost(WAIT).until(() -> sub.stats().received() == 10);
        sub.leave().block(WAIT);
        pub.close().block(WAIT);
        sub.join().block(WAIT);
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.SILENT);
        assertThat(events).extracting(TopicEvent::kind).containsSubsequence(TopicEvent.Kind.LEFT,
                TopicEvent.Kind.JOINED, TopicEvent.Kind.SILENT);
        TopicEvent silent = events.getLast();
        assertThat(silent.epoch()).as("nothing heard since the re-join").isZero();
        assertThat(silent.toString()).contains("no publisher heard for");
        assertThat(sub.stats().silences()).isPositive();
    }

    @Test
    void aPublisherThatDiesIsSilentAndOneThatRestartsIsANewEpochCountedFromOne() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("life"));
        Collected got = new Collected(sub);
        TopicPublisher first = hosts.pubsub(0).publisherNow("life");
        first.publish(Flux.range(1, 5).map(i -> "a" + i)).block(WAIT);
        await().atMost(WAIT).until(() -> sub.stats().received() == 5);
        hosts.loops.get(0).close(); // the publisher's host goes down: no CLOSE frame
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.SILENT);
        assertThat(sub.stats().publisher()).isEqualTo(PublisherState.SILENT);

        TopicPublisher second = closing(hosts.pubsub(3).publisherNow("life")); // restarted elsewhere
        second.publish(Flux.range(1, 7).map(i -> "b" + i)).block(WAIT);
        await().atMost(WAIT).until(() -> sub.stats().received() == 12);
        SubscriberStats s = sub.stats();
        assertThat(s.restarts()).isEqualTo(1);
        assertThat(s.epoch()).isEqualTo(second.epoch()).isNotEqualTo(first.epoch());
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.LIVE);
        assertThat(s.lost()).isZero();
        assertThat(got.payloads).containsExactly("a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4", "b5", "b6",
                "b7");
    }

    @Test
    void badInputFailsTypedAndLosesNothing() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("big"));
        Collected got = new Collected(sub);
        TopicPublisher pub = closing(hosts.pubsub(0).publisherNow("big"));
        byte[] fits = new byte[pub.maxPayload()];
        byte[] tooBig = new byte[pub.maxPayload() + 1];
        StepVerifier.create(pub.publish(Flux.just(fits, tooBig, fits)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(PayloadTooLargeException.class, x -> {
                    assertThat(x.size()).isEqualTo(pub.maxPayload() + 1);
                    assertThat(x.maxPayload()).isEqualTo(pub.maxPayload());
                    assertThat(x.topic()).isEqualTo("big");
                }))
                .verify(WAIT);
        assertThat(pub.sequence()).as("the oversize message took no number").isEqualTo(1);
        StepVerifier.create(pub.publish(Mono.just(42))).expectError(IllegalArgumentException.class).verify(WAIT);
        java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        StepVerifier.create(pub.publish(Mono.just(writing(pub.maxPayload() + 1, released))))
                .expectError(PayloadTooLargeException.class).verify(WAIT);
        assertThat(pub.sequence()).as("nor did a payload that would write too much").isEqualTo(1);
        await().atMost(WAIT).untilAsserted(() -> assertThat(released).as("released, though not sent").hasValue(1));
        pub.publish(Mono.just(writing(5, released))).block(WAIT); // written in registered memory as it is posted
        await().atMost(WAIT).until(() -> got.payloads.size() == 2);
        assertThat(got.sequences).containsExactly(1L, 2L);
        assertThat(got.payloads.getLast()).isEqualTo("after");
        assertThat(sub.stats().lost()).isZero();

        // groups and hosts nobody has
        assertThatThrownBy(() -> hosts.pubsub(0).groups(hosts.groups.with("odd", "10.1.2.3")))
                .isInstanceOf(IllegalArgumentException.class);
        StepVerifier.create(hosts.pubsub(0).host("127.0.0.99").subscriber("nowhere"))
                .expectError(RdmaException.class).verify(WAIT);
        StepVerifier.create(hosts.pubsub(0).host("127.0.0.99").publisher("nowhere"))
                .expectError(RdmaException.class).verify(WAIT);
        pub.close().block(WAIT);
        StepVerifier.create(pub.publish(Mono.just("closed"))).expectError(IllegalStateException.class).verify(WAIT);
    }

    @Test
    void manyTopicsPerProcessEvenOnOneGroupStayApart() {
        // every subscriber hears all twelve topics: slower heartbeats and paced publishers keep that light
        TopicGroups one = TopicGroups.single(hosts.groups.topic("any").group().getAddress().getHostAddress());
        PubSub subs = hosts.pubsub(1).heartbeat(Duration.ofMillis(100)).receiveWindow(512, 128).groups(one);
        PubSub pubs = hosts.pubsub(0).heartbeat(Duration.ofMillis(100)).rateLimit(1000).groups(one);
        int topics = 12;
        List<TopicSubscriber> subscribers = IntStream.range(0, topics)
                .mapToObj(i -> closing(subs.subscriberNow("t" + i))).toList();
        List<Collected> got = subscribers.stream().map(Collected::new).toList();
        List<TopicPublisher> publishers = IntStream.range(0, topics)
                .mapToObj(i -> closing(pubs.publisherNow("t" + i))).toList();
        Flux.range(0, topics).flatMap(i -> publishers.get(i).publish(Flux.range(1, 20).map(j -> "t" + i + "-" + j)))
                .blockLast(WAIT);
        for (int i = 0; i < topics; i++) {
            Collected c = got.get(i);
            int topic = i;
            TopicSubscriber sub = subscribers.get(i);
            // twelve QPs on one loop each hear every topic: a loaded machine may lose one at a receive queue, and
            // then it is counted (a heartbeat tells), never delivered to the wrong topic
            await().atMost(WAIT).untilAsserted(() -> assertThat(sub.stats().highest()).isEqualTo(20));
            await().atMost(WAIT).untilAsserted(() -> assertThat(c.payloads).as(sub.stats().toString())
                    .hasSize((int) sub.stats().received()));
            assertThat(c.payloads).allMatch(p -> p.startsWith("t" + topic + "-"));
            SubscriberStats s = subscribers.get(i).stats();
            assertThat(s.received() + s.lost()).isEqualTo(20);
            assertThat(s.foreign()).as("the other topics' frames on the shared group").isPositive();
        }
    }

    @Test
    void theRateLimitPacesPublishing() {
        TopicSubscriber sub = closing(hosts.pubsub(1).subscriberNow("slow"));
        TopicPublisher pub = closing(hosts.pubsub(0).rateLimit(500).publisherNow("slow"));
        long t0 = System.nanoTime();
        pub.publish(Flux.range(1, 200).map(i -> "m" + i)).block(WAIT);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(seconds).as("200 messages at 500/s").isGreaterThan(0.38);
        await().atMost(WAIT).until(() -> sub.stats().received() == 200);
    }

    @Test
    void aConsumerWithoutDemandOverrunsItsQueueCountedAndMessagesCanBeRetained() {
        TopicSubscriber sub = closing(hosts.pubsub(1).receiveWindow(64, 8).subscriberNow("lazy"));
        TopicPublisher pub = closing(hosts.pubsub(0).publisherNow("lazy"));
        await().atMost(WAIT).until(() -> sub.publisherState() == PublisherState.LIVE);
        pub.publish(Flux.range(1, 20).map(i -> "m" + i)).block(WAIT);
        await().atMost(WAIT).until(() -> sub.stats().received() == 20);
        assertThat(sub.stats().overruns()).as("nobody subscribed: 8 wait, 12 overrun").isEqualTo(12);
        assertThat(sub.stats().lost()).isZero();
        List<TopicMessage> kept = new ArrayList<>();
        StepVerifier.create(sub.messages().take(8).map(m -> {
                    if (m.sequence() <= 2) {
                        kept.add(m.retain());
                    }
                    return m.sequence();
                }))
                .expectNext(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L)
                .expectComplete()
                .verify(WAIT);
        assertThat(kept).extracting(m -> m.asString()).containsExactly("m1", "m2");
        assertThatThrownBy(() -> kept.getFirst().retain()).isInstanceOf(IllegalStateException.class);
        kept.forEach(TopicMessage::release);
        assertThat(kept.getFirst().release()).isFalse();
        assertThatThrownBy(() -> kept.getFirst().payload()).isInstanceOf(IllegalStateException.class);
        // the stream takes a new subscriber once the previous one cancelled
        pub.publish(Mono.just("again")).block(WAIT);
        StepVerifier.create(sub.messages().map(TopicMessage::asString).take(1)).expectNext("again")
                .expectComplete().verify(WAIT);
    }

    @Test
    void aSendOnlyPublisherReceivesNothingAndClosingCompletesTheStreams() {
        TopicSubscriber sub = hosts.pubsub(1).subscriberNow("close");
        TopicPublisher pub = closing(hosts.pubsub(0).publisherNow("close"));
        StepVerifier.create(sub.messages().map(TopicMessage::asString))
                .then(() -> pub.publish(Mono.just("only")).subscribe())
                .expectNext("only")
                .then(sub::dispose)
                .expectComplete()
                .verify(WAIT);
        StepVerifier.create(sub.events()).thenConsumeWhile(e -> true).expectComplete().verify(WAIT);
        assertThat(sub.isDisposed()).isTrue();
        StepVerifier.create(sub.join()).expectError(IllegalStateException.class).verify(WAIT);
        assertThat(pub.toString()).contains("#1");
        assertThat(new String("only".getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo("only");
    }

    /** A payload that writes "after" (and zeros) into registered memory itself, counting its releases. */
    static ReleasablePayload writing(int length, java.util.concurrent.atomic.AtomicInteger released) {
        return new ReleasablePayload() {
            @Override
            public int length() {
                return length;
            }

            @Override
            public void copyTo(MemorySegment target) {
                target.fill((byte) 0);
                byte[] text = "after".getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(MemorySegment.ofArray(text), 0, target, 0, Math.min(text.length, target.byteSize()));
            }

            @Override
            public void release() {
                released.incrementAndGet();
            }
        };
    }

    /** 1..n as a list of longs. */
    static final class LongsFrom1 {
        static List<Long> to(int n) {
            return java.util.stream.LongStream.rangeClosed(1, n).boxed().toList();
        }
    }
}
