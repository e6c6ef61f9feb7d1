package dev.ibex.pubsub;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.reactive.DatagramMessage;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A subscriber of one topic, as {@link PubSub#subscriber} opens it (joined). It reads every frame of the topic's
 * group as it arrives — counting by sequence number what is lost, late or duplicated, hearing heartbeats for tail
 * loss and silence, telling restarts by epoch — and hands the messages to {@link #messages()}. It can
 * {@link #leave()} and {@link #join()} again: its {@link #stats()} and {@link #messages()} carry on across, and what
 * was sent while it was away is counted as such, not as loss. {@link #events()} says what happened when.
 *
 * <p>Threading: everything runs on the subscriber's event loop (its successive memberships are pinned there);
 * signals are emitted on it. Public methods may be called from any thread.
 */
public final class TopicSubscriber implements Disposable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicSubscriber.class);

    private final Topic topic;
    private final EventLoop loop;
    private final RdmaMulticast multicast;
    private final SequenceTracker tracker = new SequenceTracker();
    private final MessageStream stream;
    private final Sinks.Many<TopicEvent> events = Sinks.many().multicast().onBackpressureBuffer(256, false);
    private final Sinks.Empty<Void> closedSink = Sinks.empty();
    private final long checkNanos;
    private final int silentAfter;
    private final AtomicBoolean member = new AtomicBoolean(); // joining or joined
    private final AtomicInteger generation = new AtomicInteger(); // a leave during a join makes the join moot
    private volatile PublisherState state = PublisherState.AWAY;
    private volatile long epoch;
    private volatile long heartbeats;
    private volatile long heartbeatsLost;
    private volatile long restarts;
    private volatile long silences;
    private volatile long foreign;
    private volatile long joins;
    private volatile boolean closed;
    // loop-confined
    private RdmaMembership membership;
    private Receiver receiver;
    private ScheduledTask watchdog;
    private long joinedAtNanos;
    private long lastHeardNanos;
    private long intervalNanos;
    private long lastHeartbeatNumber;
    private boolean heardThisJoin;

    TopicSubscriber(PubSub.Config config, Topic topic, EventLoop loop, RdmaMulticast multicast) {
        this.topic = topic;
        this.loop = loop;
        this.multicast = multicast;
        this.stream = new MessageStream(loop, PubSub.streamQueue(config));
        this.checkNanos = config.heartbeat().toNanos();
        this.silentAfter = config.silentAfter();
        this.intervalNanos = checkNanos;
    }

    /**
     * The topic this subscriber reads.
     *
     * @return the topic, with its id and group
     */
    public Topic topic() {
        return topic;
    }

    /**
     * The event loop the subscriber's memberships are pinned to, and on which its signals are emitted.
     *
     * @return the subscriber's event loop
     */
    public EventLoop loop() {
        return loop;
    }

    /**
     * The topic's messages, in arrival order (a late message after the ones that overtook it; never a duplicate),
     * across leave and re-join; completes when the subscriber is closed. One subscriber at a time (another may come
     * once the previous one cancelled). Messages are lent as {@link TopicMessage} says; those that find no demand
     * wait in a bounded queue, and beyond it are released and counted ({@link SubscriberStats#overruns()}).
     *
     * @return the topic's messages, as one shared stream
     */
    public Flux<TopicMessage> messages() {
        return stream;
    }

    /**
     * What happens to the membership and the publisher (joined, left, gaps, silence, restarts, close).
     *
     * @return the subscriber's events; a subscriber late to it misses earlier ones
     */
    public Flux<TopicEvent> events() {
        return events.asFlux();
    }

    /**
     * The counts so far (kept across leave and re-join). Any thread.
     *
     * @return a snapshot of the counts
     */
    public SubscriberStats stats() {
        SequenceTracker t = tracker;
        return new SubscriberStats(topic.name(), state, epoch, t.highest, t.received, t.lost, t.outOfOrder,
                t.duplicates, t.stale, t.missedWhileAway, stream.overruns(), heartbeats, heartbeatsLost, restarts,
                silences, foreign, joins);
    }

    /**
     * What the subscriber knows of its publisher now (also {@code stats().publisher()}).
     *
     * @return the publisher's state as last seen
     */
    public PublisherState publisherState() {
        return state;
    }

    /**
     * Whether the subscriber is a member of its topic's group now (joined and not left). Any thread.
     *
     * @return {@code false} before the first join completes, after a {@link #leave()} and after close
     */
    public boolean isJoined() {
        return state != PublisherState.AWAY;
    }

    // ---- joining and leaving ----

    /**
     * Joins the topic's group again after a {@link #leave()} (the first join is {@link PubSub#subscriber}'s): emits
     * this subscriber once joined. Counting resumes from the first frame heard; numbers sent in between are counted
     * as {@code missedWhileAway}. Fails with {@link IllegalStateException} when joined (or joining) already or
     * closed, and as {@link PubSub#subscriber} does otherwise.
     *
     * @return a Mono that emits this subscriber once joined
     */
    public Mono<TopicSubscriber> join() {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(new IllegalStateException(this + " is closed"));
            }
            if (!member.compareAndSet(false, true)) {
                return Mono.error(new IllegalStateException(this + " is joined or joining already: leave first"));
            }
            int gen = generation.get();
            long t0 = System.nanoTime();
            return multicast.join(topic.group())
                    .map(m -> attach(m, gen, System.nanoTime() - t0))
                    .doOnError(e -> member.set(false))
                    .doOnCancel(() -> member.set(false));
        });
    }

    /**
     * {@link #join()} and wait (never on an event loop).
     *
     * @return this subscriber, joined
     * @throws IllegalStateException when called on an event loop thread, or as {@link #join()} fails
     */
    public TopicSubscriber joinNow() {
        PubSub.checkNotOnLoop("joinNow");
        return join().block(Duration.ofSeconds(60));
    }

    /** On the loop: the membership is ours now. */
    private TopicSubscriber attach(RdmaMembership m, int gen, long joinNanos) {
        if (closed || gen != generation.get()) {
            m.dispose();
            throw new IllegalStateException(this + (closed ? " was closed" : " left") + " while joining");
        }
        membership = m;
        long now = System.nanoTime();
        joinedAtNanos = now;
        lastHeardNanos = 0;
        lastHeartbeatNumber = 0;
        heardThisJoin = false;
        tracker.join();
        joins++;
        observe(Observation.JOIN, tracker.highest, Duration.ofNanos(joinNanos));
        receiver = new Receiver();
        m.receive().subscribe(receiver);
        watchdog = loop.schedule(this::watch, checkNanos, TimeUnit.NANOSECONDS);
        return this;
    }

    /**
     * Leaves the group: the publisher is {@link PublisherState#AWAY} from here, statistics and {@link #messages()}
     * stay. Completes when the group is left (at once when not joined). Any thread.
     *
     * @return a Mono that completes once the group is left
     */
    public Mono<Void> leave() {
        return Mono.<RdmaMembership>create(sink -> onLoop(() -> {
                    generation.incrementAndGet();
                    sink.success(detach());
                }, sink::error))
                .flatMap(RdmaMembership::leave);
    }

    /** On the loop: stop hearing the current membership; returns it (null when none). */
    private RdmaMembership detach() {
        RdmaMembership m = membership;
        member.set(false);
        if (m == null) {
            return null;
        }
        membership = null;
        tracker.leave();
        observe(Observation.LEAVE, tracker.highest, Duration.ZERO);
        if (receiver != null) {
            receiver.cancel();
            receiver = null;
        }
        if (watchdog != null) {
            watchdog.cancel();
            watchdog = null;
        }
        return m;
    }

    /**
     * Leaves (if joined), then completes {@link #messages()} (after what waits) and {@link #events()}. Idempotent.
     *
     * @return a Mono that completes once the subscriber is closed
     */
    public Mono<Void> close() {
        return Mono.defer(() -> {
            if (!closed) {
                closed = true;
                leave().onErrorResume(e -> Mono.empty()).then(Mono.<Void>create(sink -> onLoop(() -> {
                    stream.finish();
                    events.tryEmitComplete();
                    sink.success();
                }, sink::error))).subscribe(null, e -> closedSink.tryEmitEmpty(), closedSink::tryEmitEmpty);
            }
            return closedSink.asMono();
        });
    }

    /** {@link #close()} without waiting. */
    @Override
    public void dispose() {
        close().subscribe(null, e -> { });
    }

    @Override
    public boolean isDisposed() {
        return closed;
    }

    // ---- what arrives (loop thread) ----

    private void onFrame(DatagramMessage d) {
        long now = System.nanoTime();
        MemorySegment p = d.payload();
        FrameKind kind = FrameHeader.kind(p, d.length());
        if (kind == null || FrameHeader.topic(p) != topic.id()) {
            foreign++;
            return;
        }
        long e = FrameHeader.epoch(p);
        long seq = FrameHeader.sequence(p);
        boolean first = !heardThisJoin; // the first frame since this join: HEARD, whatever came before
        if (e != epoch) {
            if (epoch == 0) {
                epoch = e;
            } else if (state == PublisherState.LIVE && Long.compareUnsigned(e, epoch) < 0) {
                tracker.stale++; // a late frame of an older incarnation while the newer one talks
                return;
            } else {
                restarts++;
                tracker.newEpoch(heardThisJoin); // heard the old one since joining: the new one started meanwhile
                epoch = e;
                lastHeartbeatNumber = 0;
                heardThisJoin = true;
                lastHeardNanos = now;
                observe(Observation.NEW_EPOCH, seq, Duration.ZERO);
            }
        }
        heardThisJoin = true;
        lastHeardNanos = now;
        if (kind == FrameKind.DATA) {
            SequenceTracker.Verdict v = tracker.onData(seq);
            observe(first ? Observation.FIRST_FRAME : Observation.FRAME, seq, Duration.ZERO);
            gap(seq - 1);
            if (v == SequenceTracker.Verdict.DELIVER) {
                stream.offer(new TopicMessage(topic, d, e, seq, now));
            }
            return;
        }
        heartbeats++;
        long n = FrameHeader.heartbeatNumber(p);
        if (lastHeartbeatNumber != 0 && n > lastHeartbeatNumber + 1) {
            heartbeatsLost += n - lastHeartbeatNumber - 1;
        }
        lastHeartbeatNumber = Math.max(lastHeartbeatNumber, n);
        intervalNanos = Math.max(1, FrameHeader.intervalMicros(p)) * 1000L;
        tracker.onHeartbeat(seq);
        gap(seq);
        observe(kind == FrameKind.CLOSE ? Observation.CLOSE : first ? Observation.FIRST_FRAME : Observation.FRAME, seq,
                Duration.ZERO);
    }

    /** Reports the gap the last frame revealed, ending just before {@code end + 1}. */
    private void gap(long end) {
        long g = tracker.lastGap();
        if (g > 0) {
            emit(new TopicEvent(TopicEvent.Kind.GAP, topic.name(), epoch, end - g + 1, g, Duration.ZERO));
        }
    }

    private void watch() {
        watchdog = null;
        if (membership == null) {
            return;
        }
        long now = System.nanoTime();
        long since = lastHeardNanos != 0 ? lastHeardNanos : joinedAtNanos;
        if ((state == PublisherState.LIVE || state == PublisherState.UNHEARD)
                && now - since > silentAfter * intervalNanos) {
            observe(Observation.QUIET, tracker.highest, Duration.ofNanos(now - since));
        }
        watchdog = loop.schedule(this::watch, checkNanos, TimeUnit.NANOSECONDS);
    }

    private void membershipLost(Throwable error) {
        LOG.warn("{}: the group was lost ({}); join again to continue", this, error.toString());
        RdmaMembership m = detach();
        if (m != null) {
            m.dispose();
        }
    }

    private void observe(Observation o, long sequence, Duration elapsed) {
        LivenessTable.Step step = LivenessTable.at(state, o);
        if (step.refuse()) {
            throw new IllegalStateException(this + ": " + o + " while " + state);
        }
        state = step.next();
        TopicEvent.Kind k = step.event();
        if (k == null) {
            return;
        }
        if (k == TopicEvent.Kind.SILENT) {
            silences++;
        }
        emit(new TopicEvent(k, topic.name(), k == TopicEvent.Kind.SILENT && !heardThisJoin ? 0 : epoch, sequence,
                k == TopicEvent.Kind.JOINED ? joins : 0, elapsed));
    }

    private void emit(TopicEvent e) {
        LOG.debug("{}", e);
        events.tryEmitNext(e); // no subscriber and a full buffer: the counts in stats() still say it
    }

    private void onLoop(Runnable r, java.util.function.Consumer<Throwable> gone) {
        if (loop.inEventLoop()) {
            r.run();
            return;
        }
        try {
            loop.execute(r);
        } catch (RejectedExecutionException e) {
            gone.accept(new IllegalStateException("the event loop has terminated", e));
        }
    }

    @Override
    public String toString() {
        return "TopicSubscriber[" + topic + ", " + state + "]";
    }

    /** Takes every datagram of the current membership as it arrives (unbounded demand; loop thread). */
    private final class Receiver implements CoreSubscriber<DatagramMessage> {
        private volatile Subscription upstream;
        private volatile boolean cancelled;

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            if (cancelled) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(DatagramMessage d) {
            if (!cancelled && receiver == this) {
                onFrame(d);
            }
        }

        @Override
        public void onError(Throwable t) {
            if (!cancelled && receiver == this) {
                membershipLost(t);
            }
        }

        @Override
        public void onComplete() {
            // the membership ended: by leave() (detached already), or disposed underneath us
            if (!cancelled && receiver == this) {
                membershipLost(new IllegalStateException("the membership was disposed"));
            }
        }

        void cancel() {
            cancelled = true;
            Subscription s = upstream;
            if (s != null) {
                s.cancel();
            }
        }
    }
}
