package dev.ibex.samples.pubsub;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.ReleasablePayload;
import dev.ibex.pubsub.Frames;
import dev.ibex.pubsub.PubSub;
import dev.ibex.pubsub.Topic;
import dev.ibex.pubsub.TopicEvent;
import dev.ibex.pubsub.TopicPublisher;
import dev.ibex.pubsub.TopicSubscriber;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.net.FreePort;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * UD multicast publish/subscribe across processes: this process publishes a topic, {@code --subscribers N} processes
 * (started here, on this JVM's class path) subscribe to it, one of them leaves mid-run and re-joins, and each prints
 * what it received, lost, got out of order, and its latency percentiles — with {@code --loss P} on soft-roce, each
 * subscriber also drops that fraction of the messages it receives and prints how many, next to what it counted as
 * lost. Exit status 0 when every subscriber's counts add up.
 *
 * <p>On soft-roce each process is its own "host": a device on 127.0.0.(base + i), all on one free UDP port. On
 * rdma-core every process uses {@code --host} (default: the first device's address).
 */
@Command(name = "pubsub", sortOptions = false,
        description = "One publisher, N subscriber processes, one topic over UD multicast; per subscriber counts and "
                + "latency percentiles.")
public final class PubSubSample implements Callable<Integer> {
    @Option(names = "--subscribers", paramLabel = "N", defaultValue = "3",
            description = "subscriber processes (default: ${DEFAULT-VALUE})")
    int subscribers;
    @Option(names = "--messages", paramLabel = "N", defaultValue = "20000",
            description = "messages to publish (default: ${DEFAULT-VALUE})")
    int messages;
    @Option(names = "--rate", paramLabel = "MSGS/S", defaultValue = "10000",
            description = "publish rate limit, 0 for none (default: ${DEFAULT-VALUE})")
    double rate;
    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "64",
            description = "payload bytes, at least 8: a send timestamp (default: ${DEFAULT-VALUE})")
    int size;
    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "ticks") String topic;
    @Option(names = "--window", paramLabel = "N", defaultValue = "1024",
            description = "receives each subscriber keeps posted: what it can absorb while its loop is busy "
                    + "(default: ${DEFAULT-VALUE})")
    int window;
    @Option(names = "--heartbeat-ms", paramLabel = "MS", defaultValue = "100",
            description = "publisher heartbeat interval (default: ${DEFAULT-VALUE})")
    long heartbeatMillis;
    @Option(names = "--rejoin", paramLabel = "I", defaultValue = "2",
            description = "the subscriber that leaves a quarter of the way in and re-joins, 0 for none "
                    + "(default: ${DEFAULT-VALUE})")
    int rejoin;
    @Option(names = "--away-ms", paramLabel = "MS", defaultValue = "200",
            description = "how long it stays away (default: ${DEFAULT-VALUE})")
    long awayMillis;
    @Option(names = "--loss", paramLabel = "P", defaultValue = "0",
            description = "soft-roce only: each subscriber drops this fraction of the messages it receives "
                    + "(seeded) and reports the count (default: ${DEFAULT-VALUE})")
    double loss;
    @Option(names = "--host", paramLabel = "IP",
            description = "rdma-core: the address every process joins from (default: the first device's)")
    String host;
    @Option(names = "--subscriber-host", paramLabel = "IP",
            description = "rdma-core: the address the subscriber processes join from (default: --host)")
    String subscriberHost;
    @Option(names = "--base-address", paramLabel = "IP", defaultValue = "127.0.0.40",
            description = "soft-roce: the publisher's loopback address; subscriber i gets the i-th next "
                    + "(default: ${DEFAULT-VALUE})")
    String baseAddress;
    @Mixin FabricOptions fabric = new FabricOptions();

    @Option(names = "--child-jvm-option", paramLabel = "OPTION", hidden = true,
            description = "a JVM option for the subscriber processes, e.g. -XX:TieredStopAtLevel=1 (repeatable)")
    List<String> childJvmOptions = new ArrayList<>();

    // a subscriber process (started by the publisher)
    @Option(names = "--role", hidden = true, defaultValue = "publisher") String role;
    @Option(names = "--index", hidden = true, defaultValue = "0") int index;
    @Option(names = "--leave-after", hidden = true, defaultValue = "0") long leaveAfter;

    private final PrintStream out;
    private final PrintStream err;

    public PubSubSample(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new PubSubSample(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (subscribers < 1 || messages < 1 || size < 8 || rate < 0 || loss < 0 || loss >= 1 || heartbeatMillis < 1
                || window < 4) {
            err.println("pubsub: --subscribers, --messages and --heartbeat-ms must be positive, --size at least 8, "
                    + "--window at least 4, --rate >= 0, --loss in [0, 1)");
            return 22;
        }
        return "subscriber".equals(role) ? subscriber() : publisher();
    }

    private Duration timeout() {
        Duration t = fabric.timeout();
        return t != null ? t : Duration.ofSeconds(180);
    }

    /** Whether the selection rule (explicit, -Dibex.provider, rdma-core with a device, else soft-roce) picks it. */
    private boolean softRoce() {
        return "soft-roce".equals(dev.ibex.cm.spi.Providers.select(fabric.provider()).name());
    }

    // ---- the publisher and launcher ----

    private int publisher() throws Exception {
        boolean soft = softRoce();
        List<String> common = new ArrayList<>(List.of("--role", "subscriber", "--topic", topic, "--heartbeat-ms",
                Long.toString(heartbeatMillis), "--size", Integer.toString(size), "--window", Integer.toString(window),
                "--timeout",
                Long.toString(timeout().toSeconds())));
        if (fabric.provider() != null) {
            common.addAll(List.of("--provider", fabric.provider()));
        }
        for (Map.Entry<String, String> e : fabric.settings().entrySet()) {
            if (!e.getKey().equals("ibex.softroce.devices")) {
                common.addAll(List.of("-D", e.getKey() + "=" + e.getValue()));
            }
        }
        List<String> addresses = new ArrayList<>();
        if (soft) {
            String[] base = baseAddress.split("\\.");
            for (int i = 0; i <= subscribers; i++) {
                addresses.add(base[0] + "." + base[1] + "." + base[2] + "." + (Integer.parseInt(base[3]) + i));
            }
            if (!fabric.settings().containsKey("ibex.softroce.port")) {
                String port = Integer.toString(FreePort.on(addresses.toArray(String[]::new)));
                fabric.settings().put("ibex.softroce.port", port);
                common.addAll(List.of("-D", "ibex.softroce.port=" + port));
            }
            fabric.settings().put("ibex.softroce.devices", "pub=" + addresses.getFirst());
        } else if (subscriberHost != null || host != null) {
            common.addAll(List.of("--host", subscriberHost != null ? subscriberHost : host));
        }
        if (loss > 0) {
            common.addAll(List.of("--loss", Double.toString(loss)));
        }
        long expectedLeave = rejoin > 0 ? Math.max(1, messages / 4) : 0;

        try (EventLoopGroup loops = fabric.openForDatagrams(size + Frames.HEADER_LENGTH)) {
            PubSub pubsub = pubsubOn(loops, soft ? addresses.getFirst() : host);
            Topic t = pubsub.topic(topic);
            out.printf(Locale.ROOT, "pub/sub on %s: topic \"%s\" on group %s, 1 publisher (%s), %d subscriber "
                    + "processes%n", loops.fabric().providerName(), t.name(), t.group().getAddress().getHostAddress(),
                    pubsub.host(), subscribers);
            List<Child> children = new ArrayList<>();
            try {
                for (int i = 1; i <= subscribers; i++) {
                    List<String> args = new ArrayList<>(common);
                    args.addAll(List.of("--index", Integer.toString(i)));
                    if (soft) {
                        args.addAll(List.of("-D", "ibex.softroce.devices=sub" + i + "=" + addresses.get(i)));
                    }
                    if (i == rejoin) {
                        args.addAll(List.of("--leave-after", Long.toString(expectedLeave), "--away-ms",
                                Long.toString(awayMillis)));
                    }
                    int n = i;
                    children.add(new Child("subscriber " + i, PubSubSample.class, childJvmOptions, args, line -> {
                        if (line.startsWith("EVENT ")) {
                            out.println("  subscriber " + n + ": " + line.substring(6));
                        }
                    }));
                }
                for (Child c : children) {
                    if (c.await("READY", timeout()) == null) {
                        err.println("pubsub: " + c.name() + " did not join:\n" + c.output());
                        return 1;
                    }
                }
                long t0 = System.nanoTime();
                TopicPublisher pub = pubsub.publisher(topic).block(timeout());
                out.printf(Locale.ROOT, "  publisher joined in %.1f ms (epoch %x), max payload %d B%n",
                        (System.nanoTime() - t0) / 1e6, pub.epoch(), pub.maxPayload());
                for (Child c : children) {
                    if (c.await("LIVE", timeout()) == null) {
                        err.println("pubsub: " + c.name() + " never heard the publisher:\n" + c.output());
                        return 1;
                    }
                }
                // half, then (once the re-joining subscriber is back) the rest: it misses a stretch, not the end
                long p0 = System.nanoTime();
                publish(pub, messages / 2, size).block(timeout());
                long p1 = System.nanoTime();
                if (rejoin > 0 && rejoin <= children.size()
                        && children.get(rejoin - 1).await("EVENT re-joined", timeout()) == null) {
                    err.println("pubsub: subscriber " + rejoin + " did not re-join:\n"
                            + children.get(rejoin - 1).output());
                    return 1;
                }
                long p2 = System.nanoTime();
                publish(pub, messages - messages / 2, size).block(timeout());
                double seconds = ((p1 - p0) + (System.nanoTime() - p2)) / 1e9;
                out.printf(Locale.ROOT, "  published %d x %d B in %.2f s: %.0f messages/s%n", messages, size,
                        seconds, messages / seconds);
                pub.close().block(timeout());
                int failed = 0;
                for (Child c : children) {
                    String stats = c.await("STATS ", timeout());
                    int code = c.exitCode(Duration.ofSeconds(30));
                    if (stats == null || code != 0) {
                        err.println("pubsub: " + c.name() + " failed (exit " + code + "):\n" + c.output());
                        failed++;
                        continue;
                    }
                    Report r = Report.parse(stats);
                    out.println("  " + r.line(c.name()));
                    if (!r.addsUp(messages)) {
                        err.println("pubsub: " + c.name() + "'s counts do not add up to " + messages + ": " + stats);
                        failed++;
                    } else if (r.injected() >= 0 && r.lost() > r.injected()) {
                        out.printf(Locale.ROOT, "    (%d more lost than dropped on purpose: the subscriber's loop fell "
                                + "behind and its %d posted receives ran out; try --window or --rate)%n",
                                r.lost() - r.injected(), window);
                    }
                }
                return failed == 0 ? 0 : 1;
            } finally {
                children.forEach(Child::close);
            }
        }
    }

    private PubSub pubsubOn(EventLoopGroup loops, String address) {
        PubSub p = PubSub.create().runOn(loops).heartbeat(Duration.ofMillis(heartbeatMillis))
                .receiveWindow(window, window / 4);
        if (rate > 0) {
            p = p.rateLimit(rate);
        }
        return address != null ? p.host(address) : p;
    }

    /**
     * {@code n} messages of {@code size} bytes, each starting with its send time — written straight into the
     * registered send buffer as the message is posted, so the latency a subscriber measures is the wire's and the
     * loops', not the time a message waited for the rate limit.
     */
    static Mono<Void> publish(TopicPublisher pub, int n, int size) {
        ReleasablePayload stamped = new ReleasablePayload() {
            @Override
            public int length() {
                return size;
            }

            @Override
            public void copyTo(MemorySegment into) {
                into.set(SubscriberReport.STAMP, 0, System.nanoTime());
                into.asSlice(8).fill((byte) 0);
            }

            @Override
            public void release() {
                // nothing held: the same instance stands for every message
            }
        };
        return pub.publish(Flux.range(1, n).map(i -> stamped));
    }

    // ---- a subscriber process ----

    private int subscriber() throws Exception {
        try (EventLoopGroup loops = fabric.openForDatagrams(size + Frames.HEADER_LENGTH)) {
            PubSub pubsub = pubsubOn(loops, host);
            Topic t = pubsub.topic(topic);
            LossKnob knob = loss > 0 ? LossKnob.install(loops, t, loss, index) : null;
            CountDownLatch done = new CountDownLatch(1);
            AtomicLong heard = new AtomicLong();
            TopicSubscriber sub = pubsub.subscriber(topic).block(timeout());
            SubscriberReport report = new SubscriberReport("subscriber " + index, sub, e -> {
                switch (e.kind()) {
                    case HEARD -> {
                        if (heard.getAndIncrement() == 0) {
                            say("LIVE");
                        }
                        if (knob != null) {
                            knob.enabled = true;
                        }
                    }
                    case LEFT -> {
                        if (done.getCount() > 0) {
                            say("EVENT left at #" + e.sequence());
                        }
                    }
                    case JOINED -> {
                        if (e.count() > 1) {
                            say(String.format(Locale.ROOT, "EVENT re-joined in %.1f ms", e.elapsed().toNanos() / 1e6));
                        }
                    }
                    case CLOSED -> done.countDown();
                    case SILENT -> {
                        if (heard.get() > 0) { // before the publisher opens, silence is expected
                            say("EVENT " + e);
                        }
                    }
                    default -> { }
                }
            });
            say("READY");
            if (leaveAfter > 0) {
                Thread.ofPlatform().daemon().start(() -> leaveAndRejoin(sub, report, knob));
            }
            if (!awaitEnd(sub, done, heard)) {
                say("TIMEOUT " + sub.stats());
                return 110;
            }
            done.countDown();
            Thread.sleep(50); // a message overtaken by the close frame still counts
            var s = sub.stats();
            Histogram h = report.latencyNanos;
            say(String.format(Locale.ROOT, "STATS %d %d %d %d %d %d %d %d %d %d %d %d %d %.1f %d", s.received(),
                    s.lost(), s.outOfOrder(), s.duplicates(), s.missedWhileAway(), s.overruns(),
                    knob == null ? -1 : knob.counted(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9), h.getMaxValue(), report.leftAt, s.joins(), report.rejoinMillis,
                    s.heartbeatsLost()));
            sub.close().block(timeout());
            return 0;
        }
    }

    /**
     * Until the publisher closed (or, after it was heard, fell silent for 2 s: it went without closing, or closed
     * while this subscriber was away), bounded by the timeout.
     */
    private boolean awaitEnd(TopicSubscriber sub, CountDownLatch closed, AtomicLong heard) throws InterruptedException {
        long deadline = System.nanoTime() + timeout().toNanos();
        long silentSince = 0;
        while (System.nanoTime() < deadline) {
            if (closed.await(100, TimeUnit.MILLISECONDS)) {
                return true;
            }
            if (heard.get() > 0 && sub.publisherState() == dev.ibex.pubsub.PublisherState.SILENT) {
                if (silentSince == 0) {
                    silentSince = System.nanoTime();
                } else if (System.nanoTime() - silentSince > 2_000_000_000L) {
                    return true;
                }
            } else {
                silentSince = 0;
            }
        }
        return false;
    }

    private void leaveAndRejoin(TopicSubscriber sub, SubscriberReport report, LossKnob knob) {
        try {
            while (report.delivered < leaveAfter) {
                Thread.sleep(1);
            }
            if (knob != null) {
                knob.enabled = false; // drop only while counting: what is dropped away is not ours to count
            }
            sub.leave().block(timeout());
            if (knob != null) {
                knob.leftAt(sub.stats().highest()); // drops beyond it show as missed while away, not as lost
            }
            Thread.sleep(awayMillis);
            sub.join().block(timeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            say("EVENT re-join failed: " + e);
        }
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /**
     * The soft-roce loss knob of a subscriber process: a receive fault rule that drops a seeded fraction of the
     * topic's messages while enabled (from the first frame heard after each join, so every drop falls after the
     * subscriber's baseline and must show up in its {@code lost} count) and counts them.
     */
    static final class LossKnob {
        /** BTH (12 bytes) + DETH (8): where a UD SEND's payload starts in a RoCEv2 packet; 4 bytes of ICRC end it. */
        private static final int ROCE_UD_HEADERS = 20;

        private final Topic topic;
        private final double probability;
        private final SplittableRandom random;
        private final java.util.concurrent.ConcurrentSkipListSet<Long> dropped =
                new java.util.concurrent.ConcurrentSkipListSet<>();
        private volatile long beyondLeave;
        volatile boolean enabled;

        private LossKnob(Topic topic, double probability, long seed) {
            this.topic = topic;
            this.probability = probability;
            this.random = new SplittableRandom(seed);
        }

        static LossKnob install(EventLoopGroup loops, Topic topic, double probability, long seed) {
            if (!(loops.fabric() instanceof SoftFabric soft)) {
                throw new IllegalArgumentException("--loss needs the soft-roce provider (its fault injection)");
            }
            LossKnob k = new LossKnob(topic, probability, seed);
            soft.faults().onReceive().dropIf((src, sport, dst, dport, p, len) -> k.test(p, len));
            return k;
        }

        private boolean test(MemorySegment packet, int length) {
            if (!enabled || length < ROCE_UD_HEADERS + 4 || (packet.get(ValueLayout.JAVA_BYTE, 0) & 0xFF) != 0x64) {
                return false; // not a UD SEND only
            }
            long seq = Frames.messageSequence(packet.asSlice(ROCE_UD_HEADERS), length - ROCE_UD_HEADERS - 4L, topic);
            if (seq < 0) {
                return false;
            }
            boolean drop;
            synchronized (random) {
                drop = random.nextDouble() < probability;
            }
            if (drop) {
                dropped.add(seq);
            }
            return drop;
        }

        /** The subscriber left with {@code highest} the last number it knew of. */
        void leftAt(long highest) {
            beyondLeave += dropped.tailSet(highest, false).size();
        }

        /** Drops the subscriber had to count as lost: all but those it was away for. */
        long counted() {
            return dropped.size() - beyondLeave;
        }
    }

    /** A subscriber's STATS line. */
    record Report(long received, long lost, long outOfOrder, long duplicates, long missed, long overruns,
            long injected, long p50, long p99, long p999, long max, long leftAt, long joins, double rejoinMillis,
            long heartbeatsLost) {

        static Report parse(String line) {
            String[] f = line.substring("STATS ".length()).trim().split(" ");
            long[] v = new long[13];
            for (int i = 0; i < 13; i++) {
                v[i] = Long.parseLong(f[i]);
            }
            return new Report(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12],
                    Double.parseDouble(f[13]), Long.parseLong(f[14]));
        }

        /**
         * Every message is accounted for once, and every message dropped on purpose was counted as lost (more is
         * lost when a receive queue runs dry: that is loss too).
         */
        boolean addsUp(long published) {
            return received + lost + missed == published && (injected < 0 || injected <= lost);
        }

        String line(String name) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                    "%s: received %d, lost %d%s, out of order %d, duplicates %d", name, received, lost,
                    injected >= 0 ? " (dropped on purpose: " + injected + ")" : "", outOfOrder, duplicates));
            if (joins > 1) {
                b.append(String.format(Locale.ROOT, ", left at #%d, re-joined in %.1f ms, missed %d while away",
                        leftAt, rejoinMillis, missed));
            }
            if (heartbeatsLost > 0) {
                b.append(", heartbeats lost ").append(heartbeatsLost);
            }
            b.append(String.format(Locale.ROOT, "; latency p50 %.0f us, p99 %.0f us, p99.9 %.0f us, max %.0f us",
                    p50 / 1e3, p99 / 1e3, p999 / 1e3, max / 1e3));
            return b.toString();
        }
    }
}
