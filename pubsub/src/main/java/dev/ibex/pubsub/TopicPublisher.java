package dev.ibex.pubsub;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.ScheduledTask;
import dev.ibex.cm.reactive.ReleasablePayload;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The publisher of one topic, as {@link PubSub#publisher} opens it: a (send-only) member of the topic's group that
 * numbers every message of its epoch from 1, writes the header in front of each payload in registered memory, and
 * sends a heartbeat (the last number sent) every interval — so subscribers tell loss, duplicates, a stop and a
 * restart apart. Closing sends a CLOSE frame (a last heartbeat), then leaves. One publisher per topic: a second
 * one is a new epoch, which subscribers take as a restart.
 *
 * <p>Threading: numbering, heartbeats and sends run on the publisher's event loop; every public method may be called
 * from any thread.
 */
public final class TopicPublisher implements Disposable {
    private static final Logger LOG = LoggerFactory.getLogger(TopicPublisher.class);
    private static final Duration CLOSE_FRAME_WAIT = Duration.ofSeconds(2);

    private final Topic topic;
    private final EventLoop loop;
    private final RdmaMembership membership;
    private final long epoch;
    private final long heartbeatNanos;
    private final RatePacer pacer;
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final ReleasablePayload heartbeat = new Beat(FrameKind.HEARTBEAT);
    private final ReleasablePayload closeFrame = new Beat(FrameKind.CLOSE);
    private volatile long sequence; // written on the loop only
    private volatile boolean closing;
    // loop-confined
    private int heartbeatNumber;
    private boolean heartbeatPending;
    private ScheduledTask timer;

    private TopicPublisher(PubSub.Config c, Topic topic, RdmaMembership membership) {
        this.topic = topic;
        this.loop = membership.loop();
        this.membership = membership;
        this.epoch = Epochs.next();
        this.heartbeatNanos = c.heartbeat().toNanos();
        this.pacer = c.rateLimit() > 0 ? new RatePacer(c.rateLimit()) : null;
    }

    static Mono<TopicPublisher> open(PubSub.Config c, Topic topic, EventLoop loop, RdmaMulticast multicast) {
        return multicast.join(topic.group()).map(m -> {
            TopicPublisher p = new TopicPublisher(c, topic, m);
            p.start(); // on the loop: the join emits there
            return p;
        });
    }

    private void start() {
        membership.onDispose().subscribe(null, e -> { }, () -> { // left: by close(), or the fabric dropped the group
            closing = true;
            if (timer != null) {
                timer.cancel();
            }
            closed.tryEmitEmpty();
        });
        sendHeartbeat();
        timer = loop.schedule(this::tick, heartbeatNanos, TimeUnit.NANOSECONDS);
    }

    private void tick() {
        if (closing) {
            return;
        }
        sendHeartbeat();
        timer = loop.schedule(this::tick, heartbeatNanos, TimeUnit.NANOSECONDS);
    }

    private void sendHeartbeat() {
        if (heartbeatPending || closing) {
            return; // the last one still waits for the send queue: one is enough
        }
        heartbeatPending = true;
        membership.send(Mono.just(heartbeat)).subscribe(null, e -> {
            heartbeatPending = false;
            if (!closing) {
                LOG.debug("{}: heartbeat failed: {}", this, e.toString());
            }
        }, () -> heartbeatPending = false);
    }

    /** A HEARTBEAT or CLOSE frame, written as it is posted (on the loop). */
    private final class Beat implements ReleasablePayload {
        private final FrameKind kind;

        Beat(FrameKind kind) {
            this.kind = kind;
        }

        @Override
        public int length() {
            return FrameHeader.HEARTBEAT_LENGTH;
        }

        @Override
        public void copyTo(MemorySegment into) {
            FrameHeader.write(into, kind, topic.id(), epoch, sequence);
            FrameHeader.writeHeartbeat(into, (int) Math.min(Integer.MAX_VALUE, heartbeatNanos / 1000),
                    ++heartbeatNumber);
        }

        @Override
        public void release() {
            // nothing held
        }
    }

    /**
     * The topic this publisher sends on.
     *
     * @return the topic, with its id and group
     */
    public Topic topic() {
        return topic;
    }

    /**
     * This publisher's epoch (its start time in ns since 1970).
     *
     * @return the epoch subscribers see in {@link TopicMessage#epoch()}
     */
    public long epoch() {
        return epoch;
    }

    /**
     * The number of the last message sent (= messages sent so far). Any thread.
     *
     * @return the last sequence number sent, 0 before the first message
     */
    public long sequence() {
        return sequence;
    }

    /**
     * The largest payload one message can carry: the path MTU less the {@value FrameHeader#LENGTH}-byte header.
     *
     * @return the largest payload in bytes
     */
    public int maxPayload() {
        return membership.endpoint().maxPayload() - FrameHeader.LENGTH;
    }

    /**
     * The loop this publisher numbers and sends on.
     *
     * @return the publisher's event loop
     */
    public EventLoop loop() {
        return loop;
    }

    /**
     * Publishes each item as one message: {@code byte[]}, {@link ByteBuffer} (its remaining bytes),
     * {@link MemorySegment}, {@link CharSequence} (UTF-8) — copied once, into the registered send buffer behind the
     * header — or a {@link ReleasablePayload}, which writes the payload there itself as the message is posted (on the
     * publisher's loop: a send timestamp, say) and is released once, posted or not. At most {@link #maxPayload()}
     * bytes: a larger payload fails the returned Mono with {@link PayloadTooLargeException} before it is posted and
     * takes no number (earlier items are sent). Items are paced by the rate limit, if any, and asked for only as the
     * send queue takes them. Completes when every message was sent (locally complete: UD does not acknowledge
     * delivery).
     *
     * @param payloads the messages to publish, in order
     * @return a Mono that completes when every message was sent, or fails with the first send's error (an
     * {@link IllegalStateException} when the publisher is closed)
     */
    public Mono<Void> publish(Publisher<?> payloads) {
        Objects.requireNonNull(payloads, "payloads");
        return Mono.defer(() -> {
            if (closing) {
                return Mono.error(new IllegalStateException(this + " is closed"));
            }
            int max = maxPayload();
            Flux<ReleasablePayload> frames = Flux.from(payloads).map(p -> frame(p, max));
            if (pacer != null) {
                frames = frames.delayUntil(f -> pacer.permit());
            }
            return membership.send(frames);
        });
    }

    private ReleasablePayload frame(Object item, int max) {
        if (item instanceof ReleasablePayload r) {
            return new Frame(null, 0, r, max);
        }
        MemorySegment payload = switch (item) {
            case byte[] a -> MemorySegment.ofArray(a);
            case ByteBuffer bb -> MemorySegment.ofBuffer(bb);
            case MemorySegment s -> s;
            case CharSequence cs -> MemorySegment.ofArray(cs.toString().getBytes(StandardCharsets.UTF_8));
            default -> throw new IllegalArgumentException("cannot publish a " + item.getClass().getName()
                    + ": publish byte[], ByteBuffer, MemorySegment, CharSequence or ReleasablePayload");
        };
        long size = payload.byteSize();
        if (size > max) {
            throw new PayloadTooLargeException(topic.name(), size, max);
        }
        return new Frame(payload, (int) size, null, max);
    }

    /**
     * One message — a payload to copy, or one that writes itself — behind its header: numbered as it is posted (on
     * the loop), so numbers follow the wire order, and only once it is sure to go.
     */
    private final class Frame implements ReleasablePayload {
        private final MemorySegment payload;
        private final int size;
        private final ReleasablePayload writer;
        private final int max;

        Frame(MemorySegment payload, int size, ReleasablePayload writer, int max) {
            this.payload = payload;
            this.size = size;
            this.writer = writer;
            this.max = max;
        }

        @Override
        public int length() {
            if (writer == null) {
                return FrameHeader.LENGTH + size;
            }
            int n = writer.length();
            if (n < 0 || n > max) {
                throw new PayloadTooLargeException(topic.name(), n, max);
            }
            return FrameHeader.LENGTH + n;
        }

        @Override
        public void copyTo(MemorySegment into) {
            long seq = sequence + 1;
            MemorySegment body = into.asSlice(FrameHeader.LENGTH);
            if (writer == null) {
                MemorySegment.copy(payload, 0, body, 0, size);
            } else {
                writer.copyTo(body);
            }
            FrameHeader.write(into, FrameKind.DATA, topic.id(), epoch, seq);
            sequence = seq;
        }

        @Override
        public void release() {
            if (writer != null) {
                writer.release();
            }
        }
    }

    /**
     * Closes: stops the heartbeats, sends a CLOSE frame (the last number sent; waits at most 2 s for it), then leaves
     * the group. Subscribers see {@link PublisherState#CLOSED} — a publisher that dies without closing is seen as
     * {@link PublisherState#SILENT} instead. Idempotent.
     *
     * @return a Mono that completes once the publisher left its group
     */
    public Mono<Void> close() {
        return Mono.defer(() -> {
            if (!closing) {
                closing = true;
                try {
                    loop.execute(() -> {
                        if (timer != null) {
                            timer.cancel();
                        }
                        membership.send(Mono.just(closeFrame)).timeout(CLOSE_FRAME_WAIT)
                                .onErrorResume(e -> Mono.empty())
                                .then(membership.leave())
                                .subscribe(null, e -> closed.tryEmitEmpty(), closed::tryEmitEmpty);
                    });
                } catch (java.util.concurrent.RejectedExecutionException loopGone) {
                    closed.tryEmitEmpty(); // the loop closed, and every endpoint on it
                }
            }
            return closed.asMono();
        });
    }

    /** {@link #close()} without waiting. */
    @Override
    public void dispose() {
        close().subscribe(null, e -> { });
    }

    @Override
    public boolean isDisposed() {
        return closing;
    }

    /**
     * Completes when the publisher closed and left.
     *
     * @return a Mono that completes once the publisher closed (never fails)
     */
    public Mono<Void> onClose() {
        return closed.asMono();
    }

    @Override
    public String toString() {
        return "TopicPublisher[" + topic + ", epoch " + Long.toHexString(epoch) + ", #" + sequence + "]";
    }
}
