package dev.ibex.pubsub;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.RdmaLoops;
import dev.ibex.cm.reactive.RdmaMulticast;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * Publish/subscribe over UD multicast, the reactive way (an immutable builder: every setter returns a copy).
 * {@link #publisher} opens a {@link TopicPublisher} (a send-only member of its topic's group), {@link #subscriber}
 * a {@link TopicSubscriber} (a member that receives). Options set here apply to what is opened from the copy they
 * were set on, so per-topic settings read {@code pubsub.rateLimit(1000).publisher("prices")}.
 *
 * <pre>{@code
 * PubSub pubsub = PubSub.create().runOn(loops).host("192.168.1.3");
 * TopicSubscriber sub = pubsub.subscriberNow("prices");
 * sub.messages().subscribe(m -> System.out.println(m.sequence() + " " + m.asString()));
 * TopicPublisher pub = pubsub.publisherNow("prices");
 * pub.publish(Flux.just("101.5", "101.6")).block();
 * System.out.println(sub.stats()); // received, lost, out of order, duplicates ...
 * }</pre>
 *
 * <p><b>Opening the provider.</b> Without {@link #runOn}, the first publisher or subscriber opens the
 * {@link RdmaLoops#global() default loops}, and with them the provider (a second or so on soft-roce), before it joins:
 * the join time a subscriber reports ({@link TopicEvent.Kind#JOINED}) never includes that, but a caller timing
 * {@code subscriberNow} does — call {@code RdmaLoops.global()} first, or {@link #runOn} loops opened beforehand.
 *
 * <p>Topics map onto groups as {@link TopicGroups} says (by default a hash of the name into 239.192.0.0/20); see the
 * package documentation for the frame format, heartbeats and what a subscriber counts.
 *
 * <p>Immutable, so any thread may use it.
 */
public final class PubSub {
    /** The default heartbeat interval. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofMillis(100);
    /** The default silence bound, in publisher heartbeat intervals. */
    public static final int DEFAULT_SILENT_AFTER = 5;
    /**
     * The default receive window of a subscriber's UD endpoint: each posted receive holds a registered buffer of the
     * loop's pool (default 4,096), so 256 leaves room for 16 subscribers per loop and device. A burst larger than the
     * window while the loop is busy is lost at the receive queue (counted as {@code lost}, as any UD loss).
     */
    public static final int DEFAULT_RECEIVE_WINDOW = 256;

    record Config(Supplier<EventLoopGroup> loops, String host, TopicGroups groups, Duration heartbeat, int silentAfter,
            double rateLimit, boolean sendOnly, int receiveWindow, int receiveQueue, Duration joinTimeout) {}

    private final Config config;

    private PubSub(Config config) {
        this.config = config;
    }

    /**
     * Default settings on the {@link RdmaLoops#global() default loops} (see the class comment).
     *
     * @return a builder with the default settings (each setter says its default)
     */
    public static PubSub create() {
        return new PubSub(new Config(RdmaLoops::global, null, TopicGroups.DEFAULT, DEFAULT_HEARTBEAT,
                DEFAULT_SILENT_AFTER, 0, true, DEFAULT_RECEIVE_WINDOW, -1, Duration.ofSeconds(10)));
    }

    private PubSub with(Config c) {
        return new PubSub(c);
    }

    /**
     * Runs on {@code loops} (the caller opened them and closes them).
     *
     * @param loops the event loop group publishers and subscribers opened from the copy run on
     * @return a copy that runs on {@code loops}
     */
    public PubSub runOn(EventLoopGroup loops) {
        Objects.requireNonNull(loops, "loops");
        Config c = config;
        return with(new Config(() -> loops, c.host, c.groups, c.heartbeat, c.silentAfter, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * The local address to join from: an address of an RDMA device (default: the first IPv4 address of the fabric's
     * first device).
     *
     * @param host an IP address of a local RDMA device
     * @return a copy that joins from {@code host}
     */
    public PubSub host(String host) {
        Objects.requireNonNull(host, "host");
        Config c = config;
        return with(new Config(c.loops, host, c.groups, c.heartbeat, c.silentAfter, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * How topics map onto groups; publishers and subscribers must agree.
     *
     * @param groups the topic-to-group mapping
     * @return a copy that maps topics with {@code groups}
     */
    public PubSub groups(TopicGroups groups) {
        Objects.requireNonNull(groups, "groups");
        Config c = config;
        return with(new Config(c.loops, c.host, groups, c.heartbeat, c.silentAfter, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * Publishers: how often to send a heartbeat (the last sequence number sent), default 100 ms. Subscribers: how
     * often to check for silence, and the interval they assume before a publisher told them its own.
     *
     * @param interval 1 ms to 1 h
     * @return a copy with that heartbeat interval
     * @throws IllegalArgumentException when {@code interval} is outside 1 ms to 1 h
     */
    public PubSub heartbeat(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.toMillis() < 1 || interval.toSeconds() > 3600) {
            throw new IllegalArgumentException("a heartbeat interval is 1 ms to 1 h, not " + interval);
        }
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, interval, c.silentAfter, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * Subscribers: a publisher is {@link PublisherState#SILENT} after this many of its heartbeat intervals without a
     * frame (default 5, so a few lost heartbeats are not mistaken for a stop).
     *
     * @param heartbeats 2 to 1000 heartbeat intervals
     * @return a copy with that silence bound
     * @throws IllegalArgumentException when {@code heartbeats} is outside 2 to 1000
     */
    public PubSub silentAfter(int heartbeats) {
        if (heartbeats < 2 || heartbeats > 1000) {
            throw new IllegalArgumentException("silentAfter is 2 to 1000 heartbeat intervals, not " + heartbeats);
        }
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, c.heartbeat, heartbeats, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * Publishers: at most this many messages per second, paced evenly (0, the default: no limit).
     *
     * @param messagesPerSecond the publishing rate limit, or 0 for none
     * @return a copy with that rate limit
     * @throws IllegalArgumentException when the rate is negative or outside the range {@code RatePacer} can pace
     */
    public PubSub rateLimit(double messagesPerSecond) {
        if (messagesPerSecond != 0) {
            new RatePacer(messagesPerSecond); // checks the range
        }
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, c.heartbeat, c.silentAfter, messagesPerSecond, c.sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * Publishers: join as send-only members (the default: a publisher receives nothing, and on InfiniBand needs no
     * receive resources); {@code false} joins as a full member, for fabrics that refuse send-only joins.
     *
     * @param sendOnly {@code true} for send-only joins, {@code false} for full-member joins
     * @return a copy whose publishers join that way
     */
    public PubSub sendOnly(boolean sendOnly) {
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, c.heartbeat, c.silentAfter, c.rateLimit, sendOnly,
                c.receiveWindow, c.receiveQueue, c.joinTimeout));
    }

    /**
     * Subscribers: receives kept posted on the group's endpoint (default {@value #DEFAULT_RECEIVE_WINDOW}) and how
     * many messages may wait for the consumer's demand (default a quarter of the window, always below it) before
     * arrivals are released and counted as overruns.
     *
     * @param receives receives kept posted, at least 2
     * @param queue    messages that may wait for demand, 0 to {@code receives - 1}
     * @return a copy whose subscribers use that window and queue
     * @throws IllegalArgumentException when {@code receives < 2} or {@code queue} is not in {@code [0, receives)}
     */
    public PubSub receiveWindow(int receives, int queue) {
        if (receives < 2 || queue < 0 || queue >= receives) {
            throw new IllegalArgumentException("the receive window must be >= 2 and the queue in [0, window), got "
                    + receives + " and " + queue);
        }
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, c.heartbeat, c.silentAfter, c.rateLimit, c.sendOnly,
                receives, queue, c.joinTimeout));
    }

    /**
     * How long a join may take before it fails with TIMEOUT (default 10 s).
     *
     * @param timeout the longest a join may take
     * @return a copy with that join timeout
     */
    public PubSub joinTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        Config c = config;
        return with(new Config(c.loops, c.host, c.groups, c.heartbeat, c.silentAfter, c.rateLimit, c.sendOnly,
                c.receiveWindow, c.receiveQueue, timeout));
    }

    /**
     * The topic called {@code name}, on the group the mapping gives it.
     *
     * @param name 1 to {@value Topic#MAX_NAME_BYTES} bytes of UTF-8
     * @return the topic, with its id and group
     * @throws IllegalArgumentException when the name is empty or too long
     */
    public Topic topic(String name) {
        return config.groups.topic(name);
    }

    /**
     * Opens a publisher of {@code topic} when subscribed: joins its group (send-only unless told otherwise), sends a
     * first heartbeat and emits the publisher; fails as {@link RdmaMulticast#join} does (typed: a group the fabric
     * refuses is an {@code RdmaConnectException} MULTICAST_ERROR, a host without a device an {@code RdmaException}).
     *
     * @param topic the topic's name
     * @return a Mono that joins and emits the publisher, or fails with the join's error
     * @throws IllegalArgumentException when the topic name is empty or too long
     */
    public Mono<TopicPublisher> publisher(String topic) {
        Topic t = topic(topic);
        Config c = config;
        return Mono.defer(() -> {
            EventLoop loop = c.loops.get().next();
            // a publisher reads nothing: one posted receive (a UD QP needs one), none waiting for demand
            return TopicPublisher.open(c, t, loop, multicast(c, loop).sendOnly(c.sendOnly).receiveWindow(1)
                    .receiveQueue(0));
        });
    }

    /**
     * {@link #publisher} and wait for it (never on an event loop).
     *
     * @param topic the topic's name
     * @return the open publisher
     * @throws IllegalStateException when called on an event loop thread
     */
    public TopicPublisher publisherNow(String topic) {
        checkNotOnLoop("publisherNow");
        return publisher(topic).block(config.joinTimeout.plusSeconds(5));
    }

    /**
     * Opens a subscriber of {@code topic} when subscribed: joins its group and emits the subscriber (joined), whose
     * {@link TopicSubscriber#messages()} then carries the topic's messages. Fails as {@link #publisher} does.
     *
     * @param topic the topic's name
     * @return a Mono that joins and emits the subscriber, or fails with the join's error
     * @throws IllegalArgumentException when the topic name is empty or too long
     */
    public Mono<TopicSubscriber> subscriber(String topic) {
        Topic t = topic(topic);
        Config c = config;
        return Mono.defer(() -> {
            EventLoop loop = c.loops.get().next();
            TopicSubscriber s = new TopicSubscriber(c, t, loop, multicast(c, loop).receiveWindow(c.receiveWindow)
                    .receiveQueue(queueFor(c)));
            return s.join().doOnError(e -> s.dispose());
        });
    }

    /**
     * {@link #subscriber} and wait for it (never on an event loop).
     *
     * @param topic the topic's name
     * @return the joined subscriber
     * @throws IllegalStateException when called on an event loop thread
     */
    public TopicSubscriber subscriberNow(String topic) {
        checkNotOnLoop("subscriberNow");
        return subscriber(topic).block(config.joinTimeout.plusSeconds(5));
    }

    /**
     * The event loops everything runs on (opens the default ones if they are used and not open yet).
     *
     * @return the group set by {@link #runOn}, else the {@link RdmaLoops#global() default loops}
     */
    public EventLoopGroup loops() {
        return config.loops.get();
    }

    /**
     * The address joins are made from ({@link #host}, or the first device's).
     *
     * @return the local IP address, as text
     * @throws IllegalStateException when no {@link #host} was set and no device has an IPv4 address
     */
    public String host() {
        return hostOf(config);
    }

    private static RdmaMulticast multicast(Config c, EventLoop loop) {
        return RdmaMulticast.create().runOn(loop).host(hostOf(c)).joinTimeout(c.joinTimeout);
    }

    /** The endpoint's own queue: our stream requests everything at once, so this only matters between them. */
    private static int queueFor(Config c) {
        return c.receiveWindow / 4;
    }

    static int streamQueue(Config c) {
        return c.receiveQueue >= 0 ? c.receiveQueue : c.receiveWindow / 4;
    }

    private static String hostOf(Config c) {
        if (c.host != null) {
            return c.host;
        }
        EventLoopGroup loops = c.loops.get();
        for (DeviceContext d : loops.fabric().devices()) {
            int n = d.queryPort(1).gidTableLength();
            for (int i = 0; i < n; i++) {
                try {
                    Gid g = d.queryGid(1, i);
                    if (g.isIpv4Mapped()) {
                        InetAddress a = g.toInetAddress();
                        if (a instanceof Inet4Address) {
                            return a.getHostAddress();
                        }
                    }
                } catch (RuntimeException unpopulated) {
                    // some devices fail to query empty GID entries
                }
            }
        }
        throw new IllegalStateException("no device of " + loops.fabric().providerName()
                + " has an IPv4 address: set host(...)");
    }

    static void checkNotOnLoop(String what) {
        if (EventLoop.isLoopThread(Thread.currentThread())) {
            throw new IllegalStateException(what + " blocks: use the Mono on an event loop");
        }
    }

    Config config() {
        return config;
    }
}
