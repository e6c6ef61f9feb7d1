package dev.ibex.bench.loopback;

import dev.ibex.bench.callback.EchoFleet;
import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Throughput;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.MeasuredCurve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.bench.udp.UdpBlast;
import dev.ibex.bench.udp.UdpEchoFleet;
import dev.ibex.bench.udp.UdpPingPong;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The scaling curves of issue 17 ({@code ./ibex bench --only curves}), every point Ibex against a raw Java UDP
 * baseline measured in the same rounds (the order rotating each round, as {@link LoopbackBench}'s workloads do):
 * <ol>
 *   <li>by message size (64 B … 1 MiB): RDMA WRITE bandwidth ({@link Throughput}) against {@link UdpBlast} of the
 *       same datagrams and flow control, and the 64 B … 16 KiB ping-pong p50 ({@link PingPong}, SEND echo) against
 *       {@link UdpPingPong} of the same payload — larger sizes have no ping-pong point, since one UDP datagram
 *       carries at most 65,507 bytes and a baseline cutting a message into datagrams would need RC's flow control;</li>
 *   <li>by connection count (1 … 256) with 1 and 2 loops per side: the aggregate 64 B echo rate of an
 *       {@link EchoFleet} (each connection keeping a few SENDs in flight) against a {@link UdpEchoFleet} of as many
 *       socket pairs served by as many threads per side, each a Selector over its share.</li>
 * </ol>
 * Each point is a table row (medians over the rounds, ratio, per-round ratio range) and each curve a PNG with
 * {@code --plots DIR}.
 *
 * <p><b>Threading.</b> Runs on the calling thread.
 */
final class ScalingCurves {
    /** The soft device's path MTU on lo, as {@link LoopbackBench#MTU}. */
    static final int MTU = LoopbackBench.MTU;
    /** The largest UDP payload in one IPv4 datagram. */
    static final int MAX_DATAGRAM = 65_507;
    static final Duration OPEN_LIMIT = Duration.ofSeconds(60);
    static final Duration RUN_LIMIT = Duration.ofSeconds(20);

    /**
     * What a run measures.
     *
     * @param sizes the message sizes of the size curves (bytes)
     * @param connections the connection counts of the connection curve
     * @param loops the loops per side the connection curve is drawn for
     * @param rounds interleaved rounds per point
     * @param volume bytes per bandwidth run (bounded by {@code maxMessages} and at least 64 messages)
     * @param maxMessages the most messages per bandwidth run
     * @param roundTrips round trips per ping-pong run (fewer for large sizes: at most {@code volume} bytes each way)
     * @param window the counting window of an echo-rate run
     * @param inFlight messages each connection or socket keeps outstanding in the echo-rate runs
     */
    record Settings(List<Integer> sizes, List<Integer> connections, List<Integer> loops, int rounds, long volume,
            int maxMessages, int roundTrips, Duration window, int inFlight) {
        static final List<Integer> SIZES = List.of(64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20);
        static final List<Integer> CONNECTIONS = List.of(1, 4, 16, 64, 256);
        static final Settings FULL = new Settings(SIZES, CONNECTIONS, List.of(1, 2), 4, 16L << 20, 20_000, 1_000,
                Duration.ofMillis(400), 4);
        static final Settings QUICK = new Settings(SIZES, CONNECTIONS, List.of(1, 2), 4, 4L << 20, 4_000, 200,
                Duration.ofMillis(120), 4);

        /** The settings of a command line: {@link #QUICK} or {@link #FULL} with {@code rounds} per point. */
        static Settings of(boolean quick, int rounds) {
            return (quick ? QUICK : FULL).withRounds(rounds);
        }

        /** These settings with {@code n} rounds per point. */
        Settings withRounds(int n) {
            return new Settings(sizes, connections, loops, n, volume, maxMessages, roundTrips, window, inFlight);
        }

        /** Messages of a bandwidth run of {@code size}-byte messages. */
        int messages(int size) {
            return (int) Math.max(64, Math.min(maxMessages, volume / size));
        }

        /** Round trips of a ping-pong run of {@code size}-byte messages. */
        int roundTrips(int size) {
            return (int) Math.max(20, Math.min(roundTrips, volume / size));
        }

        /** The send queue depth of a WRITE stream of {@code size}-byte messages (perftest's 128 for small ones). */
        static int writeDepth(int size) {
            return size <= 4 << 10 ? 128 : size <= 64 << 10 ? 32 : 16;
        }
    }

    private final Settings settings;
    private final PrintStream out;
    private final Watchdog watchdog;

    ScalingCurves(Settings settings, PrintStream out, Watchdog watchdog) {
        this.settings = settings;
        this.out = out;
        this.watchdog = watchdog;
    }

    /** The table this workload fills. */
    static RatioTable table() {
        return new RatioTable("Scaling curves on this host: soft-roce on loopback vs raw Java UDP, by message size and "
                + "by connection count (" + HostLoad.describe() + " at start)", "raw UDP");
    }

    /** Measures both curves into {@code table}. */
    void run(RatioTable table) {
        sizes(table);
        connections(table);
    }

    /** The size curves: WRITE bandwidth and ping-pong p50 per message size. */
    void sizes(RatioTable table) {
        MeasuredCurve bandwidth = new MeasuredCurve();
        MeasuredCurve latency = new MeasuredCurve();
        int port = 7480;
        long writeRetransmissions = 0;
        for (int size : settings.sizes()) {
            watchdog.phase("curves: " + Curve.sizeLabel(size) + " WRITE");
            int messages = settings.messages(size);
            try (UdpBlast raw = UdpBlast.open(LoopbackHosts.server(), LoopbackHosts.client(), size, MTU, 4 << 20);
                    Throughput ibex = Throughput.open(LoopbackHosts.softRoce(port++), Throughput.Kind.WRITE, size,
                            Settings.writeDepth(size), 16, OPEN_LIMIT)) {
                raw.run(Math.max(8, messages / 4)); // warm-up
                ibex.run(Math.max(8, messages / 4), RUN_LIMIT);
                long before = ibex.counter("retransmissions");
                for (int r = 1; r <= settings.rounds(); r++) {
                    long[] nanos = new long[2];
                    long[] cpu = new long[2];
                    LoopbackBench.alternate(r, () -> raw.run(messages), () -> ibex.run(messages, RUN_LIMIT), nanos,
                            cpu);
                    double b = LoopbackBench.megabytesPerSecond(messages, size, nanos[0]);
                    double m = LoopbackBench.megabytesPerSecond(messages, size, nanos[1]);
                    bandwidth.add(size, "WRITE " + Curve.sizeLabel(size) + " (MB/s)", b, m);
                    out.printf(Locale.ROOT, "curves %s WRITE round %d: raw %.1f | Ibex %.1f MB/s (%s)%n",
                            Curve.sizeLabel(size),
                            r, b, m, HostLoad.describe());
                }
                writeRetransmissions += ibex.counter("retransmissions") - before;
            }
            if (size > MAX_DATAGRAM) { // 64 KiB and up do not fit one datagram
                continue;
            }
            watchdog.phase("curves: " + Curve.sizeLabel(size) + " ping-pong");
            int roundTrips = settings.roundTrips(size);
            try (UdpPingPong raw = UdpPingPong.open(LoopbackHosts.server(), LoopbackHosts.client(), size);
                    PingPong ibex = PingPong.open(LoopbackHosts.softRoce(port++), size, OPEN_LIMIT)) {
                for (int i = 0; i < 3; i++) { // as LoopbackBench warms its ping-pong
                    raw.run(roundTrips / 2);
                    ibex.run(roundTrips / 2, RUN_LIMIT);
                }
                for (int r = 1; r <= settings.rounds(); r++) {
                    Histogram[] h = new Histogram[2];
                    for (int k = 0; k < 2; k++) {
                        int which = (k + r) % 2;
                        h[which] = which == 0 ? raw.run(roundTrips) : ibex.run(roundTrips, RUN_LIMIT);
                    }
                    double b = LoopbackBench.micros(h[0], 50);
                    double m = LoopbackBench.micros(h[1], 50);
                    latency.add(size, "ping-pong " + Curve.sizeLabel(size) + " p50 (us)", b, m);
                    out.printf(Locale.ROOT, "curves %s ping-pong round %d: raw p50 %.1f | Ibex p50 %.1f us (%s)%n",
                            Curve.sizeLabel(size), r, b, m, HostLoad.describe());
                }
            }
        }
        bandwidth.rows().forEach(table::add);
        latency.rows().forEach(table::add);
        table.note("curves by size: per size a fresh pair; WRITE = RDMA WRITE stream (callback API, send queue 128 up "
                + "to 4 KiB, 32 up to 64 KiB, 16 beyond) vs a UDP blast of the same datagrams (4096 B payload each, "
                + "RoCE header sizes, AckReq every 64 and at message end, 128 in flight); "
                + settings.volume() / (1 << 20) + " MiB per run, at most " + settings.maxMessages()
                + " and at least 64 messages; Ibex's retransmissions in the measured rounds (no injected fault): "
                + writeRetransmissions);
        table.note("  ping-pong = Ibex RC SEND echo (one in flight) vs UdpPingPong (one datagram each way), 64 B .. 16 "
                + "KiB; 64 KiB and up have no ping-pong point (one UDP datagram carries at most 65,507 B)");
        table.curve(new Curve("curves-size-bandwidth", "Bandwidth by message size (soft-roce loopback, same run)",
                "message size (bytes)", "MB/s", true, true, Curve.twoSeries(
                        "raw UDP blast (same datagrams, RC-like ACKs)",
                        bandwidth.baseline(), "Ibex RDMA WRITE", bandwidth.ibex())));
        table.curve(new Curve("curves-size-latency", "Ping-pong p50 by message size (soft-roce loopback, same run)",
                "message size (bytes)", "round trip p50 (us)", true, true, Curve.twoSeries("raw UDP ping-pong",
                        latency.baseline(), "Ibex SEND echo", latency.ibex())));
        table.curve(new Curve("curves-size-ratios", "Ibex / raw UDP by message size (same run)",
                "message size (bytes)", "ratio Ibex / UDP", true, false, Curve.twoSeries(
                        "WRITE bandwidth (higher is better)", bandwidth.ratios(),
                        "ping-pong p50 (lower is better)", latency.ratios())));
    }

    /** The connection curves: aggregate 64 B echo rate per connection count, for each loops-per-side setting. */
    void connections(RatioTable table) {
        Map<String, List<Curve.Point>> rates = new LinkedHashMap<>();
        Map<String, List<Curve.Point>> ratios = new LinkedHashMap<>();
        int port = 7500;
        long retransmissions = 0;
        List<String> perPoint = new java.util.ArrayList<>(); // "connections/loops: retransmissions"
        for (int loops : settings.loops()) {
            MeasuredCurve curve = new MeasuredCurve();
            for (int n : settings.connections()) {
                watchdog.phase("curves: " + n + " connections, " + loops + " loop(s) per side");
                try (UdpEchoFleet raw = UdpEchoFleet.open(LoopbackHosts.server(), LoopbackHosts.client(), n, loops,
                        LoopbackBench.MESSAGE, settings.inFlight());
                        EchoFleet ibex = EchoFleet.open(LoopbackHosts.softRoce(port++), loops, n,
                                LoopbackBench.MESSAGE, settings.inFlight(), OPEN_LIMIT)) {
                    Duration warm = settings.window().dividedBy(2);
                    raw.run(warm, RUN_LIMIT);
                    ibex.run(warm, RUN_LIMIT);
                    long before = ibex.counter("retransmissions");
                    for (int r = 1; r <= settings.rounds(); r++) {
                        double[] rate = new double[2];
                        for (int k = 0; k < 2; k++) {
                            int which = (k + r) % 2;
                            rate[which] = which == 0 ? raw.run(settings.window(), RUN_LIMIT)
                                    : ibex.run(settings.window(), RUN_LIMIT);
                        }
                        curve.add(n, n + " conn, " + loops + " loop/side, 64 B echo (k msg/s)", rate[0] / 1e3,
                                rate[1] / 1e3);
                        out.printf(Locale.ROOT, "curves %d connections %d loop(s) round %d: raw %.1f | Ibex %.1f k "
                                + "echoes/s (%s)%n", n, loops, r, rate[0] / 1e3, rate[1] / 1e3, HostLoad.describe());
                    }
                    long again = ibex.counter("retransmissions") - before;
                    retransmissions += again;
                    perPoint.add(n + "/" + loops + ": " + again);
                }
            }
            curve.rows().forEach(table::add);
            String side = loops + (loops == 1 ? " loop" : " loops") + " per side";
            rates.put("raw UDP, " + loops + (loops == 1 ? " thread" : " threads") + " per side", curve.baseline());
            rates.put("Ibex, " + side, curve.ibex());
            ratios.put(side, curve.ratios());
        }
        table.note("curves by connections: N RC connections between one client and one server group (L loops each, "
                + "connections spread round-robin), each keeping " + settings.inFlight() + " 64 B SENDs in flight, "
                + "the server echoing; vs N connected non-blocking DatagramChannel pairs served by L threads per side "
                + "(a Selector each, the same in-flight count per socket); rate counted over "
                + settings.window().toMillis() + " ms per round; Ibex's retransmissions in the measured rounds (no "
                + "injected fault): " + retransmissions + " (per connections/loops: " + String.join(", ", perPoint)
                + ")");
        table.curve(new Curve("curves-connections", "Aggregate 64 B echo rate by connection count (soft-roce "
                + "loopback, same run)", "connections", "k echoes/s", true, false, rates));
        table.curve(new Curve("curves-connections-ratios", "Ibex / raw UDP echo rate by connection count (same run)",
                "connections", "ratio Ibex / UDP (higher is better)", true, false, ratios));
    }
}
