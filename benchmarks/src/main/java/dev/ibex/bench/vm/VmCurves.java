package dev.ibex.bench.vm;

import dev.ibex.bench.callback.EchoFleet;
import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Sides;
import dev.ibex.bench.callback.Throughput;
import dev.ibex.bench.perftest.PerftestResult;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.MeasuredCurve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Watchdog;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * The rdma-core provider's scaling curves in the Soft-RoCE VM (issue 18, {@code ./ibex bench --vm --only curves}),
 * every point Ibex against the C tool measured in the same round of the same boot (the order alternating each round):
 * <ol>
 *   <li>by message size (2 B … 1 MiB): the ping-pong's one-way typical latency ({@link PingPong}, SEND echo, round
 *       trip / 2) against {@code ib_send_lat -s} (busy-polling), and RDMA WRITE bandwidth ({@link Throughput})
 *       against {@code ib_write_bw -s} with the same send queue depth;</li>
 *   <li>by connection count (1 … 256): the aggregate 64 B echo rate of an {@link EchoFleet} (one loop per side, each
 *       connection keeping {@value #IN_FLIGHT} SENDs in flight, the server echoing, so a message each way per echo)
 *       against {@code ib_send_bw -b -q N -t} {@value #IN_FLIGHT} (N QPs sending both ways, as many in flight per
 *       QP): messages per second both ways, a report — a stream is not an echo, but both put the same number of
 *       64 B messages in flight per connection over N connections.</li>
 * </ol>
 * Each point is a table row (medians over the rounds, their ratio, the per-round range) and each curve a PNG in the
 * results directory. No row has a target: the issue asks for the curves, its targets are the 64 B and 64 KiB rows of
 * the other workloads.
 *
 * <p><b>Threading.</b> Runs on the calling thread.
 */
final class VmCurves {
    /** Messages each connection (or QP) keeps in flight on the connection curve. */
    static final int IN_FLIGHT = 4;
    /**
     * {@code ib_send_bw}'s receive depth per QP on the connection curve: its CQs hold depth x QPs entries, and
     * perftest's default (512) makes a 256-QP CQ rxe refuses ("Couldn't create a receiver CQ").
     */
    static final int RX_DEPTH = 16;

    /**
     * What a run measures.
     *
     * @param sizes the message sizes of the size curves (bytes)
     * @param connections the connection counts of the connection curve
     * @param volume bytes per bandwidth or latency run (bounded by {@code maxMessages} and {@code minMessages})
     * @param minMessages the fewest messages (or round trips) per run
     * @param maxMessages the most messages (or round trips) per run
     * @param window the counting window of an echo-rate run
     * @param sends the messages per QP of an {@code ib_send_bw} run
     */
    record Settings(List<Integer> sizes, List<Integer> connections, long volume, int minMessages, int maxMessages,
            Duration window, int sends) {
        static final List<Integer> SIZES = List.of(2, 64, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20);
        static final List<Integer> CONNECTIONS = List.of(1, 4, 16, 64, 256);
        /** About twice {@link #QUICK}'s messages: 741 s in the guest at 3 rounds, inside ./ibex bench --vm's limit. */
        static final Settings FULL = new Settings(SIZES, CONNECTIONS, 16L << 20, 30, 600, Duration.ofMillis(1_500),
                1_000);
        static final Settings QUICK = new Settings(SIZES, CONNECTIONS, 8L << 20, 20, 300, Duration.ofMillis(800),
                500);

        /** Messages (or round trips) of a run of {@code size}-byte messages. */
        int messages(int size) {
            return (int) Math.max(minMessages, Math.min(maxMessages, volume / size));
        }

        /** The send queue depth of a WRITE stream of {@code size}-byte messages (perftest's 128 for small ones). */
        static int writeDepth(int size) {
            return size <= 4 << 10 ? 128 : size <= 64 << 10 ? 32 : 16;
        }
    }

    private final Settings settings;
    private final int rounds;
    private final PrintStream out;
    private final Watchdog watchdog;
    private final IntFunction<Sides> sides;
    private final IntFunction<Sides> groups;
    private final BiFunction<String, String[], PerftestResult> tool;

    /**
     * @param sides the two sides of an Ibex pair on a CM port
     * @param groups the same with a fabric (and so a loop group) per side, as an echo fleet needs
     * @param tool runs a perftest tool (name, arguments) and returns the client's result row
     */
    VmCurves(Settings settings, int rounds, PrintStream out, Watchdog watchdog, IntFunction<Sides> sides,
            IntFunction<Sides> groups, BiFunction<String, String[], PerftestResult> tool) {
        this.settings = settings;
        this.rounds = rounds;
        this.out = out;
        this.watchdog = watchdog;
        this.sides = sides;
        this.groups = groups;
        this.tool = tool;
    }

    /** Measures both curves into {@code table}. */
    void run(RatioTable table) {
        sizes(table);
        connections(table);
    }

    /** The size curves: ping-pong latency and WRITE bandwidth per message size. */
    void sizes(RatioTable table) {
        MeasuredCurve latency = new MeasuredCurve();
        MeasuredCurve bandwidth = new MeasuredCurve();
        int port = 7600;
        for (int size : settings.sizes()) {
            int p = port;
            port += 2;
            point(table, Curve.sizeLabel(size) + " ping-pong", () -> latencyPoint(size, p, latency));
            point(table, Curve.sizeLabel(size) + " WRITE", () -> writePoint(size, p + 1, bandwidth));
        }
        latency.rows().forEach(table::add);
        bandwidth.rows().forEach(table::add);
        table.note("curves by size: per size a fresh Ibex pair; latency = the callback PingPong's round trip / 2 (SEND "
                + "echo, one in flight, CQ events) vs ib_send_lat -s (busy-polling its CQ); WRITE = RDMA WRITE stream "
                + "vs ib_write_bw -s with the same send queue depth (128 up to 4 KiB, 32 up to 64 KiB, 16 beyond); "
                + settings.volume() / (1 << 20) + " MiB per run, " + settings.minMessages() + " to "
                + settings.maxMessages() + " messages; MB = 10^6 B");
        table.curve(new Curve("vm-curves-size-latency", "One-way latency by message size (rdma-core on rxe, qemu TCG, "
                + "same boot)", "message size (bytes)", "one-way typical (us)", true, true,
                Curve.twoSeries("ib_send_lat (busy-polling)", latency.baseline(), "Ibex SEND echo / 2",
                        latency.ibex())));
        table.curve(new Curve("vm-curves-size-bandwidth", "RDMA WRITE bandwidth by message size (rdma-core on rxe, "
                + "qemu TCG, same boot)", "message size (bytes)", "MB/s", true, true,
                Curve.twoSeries("ib_write_bw", bandwidth.baseline(), "Ibex RDMA WRITE", bandwidth.ibex())));
        table.curve(new Curve("vm-curves-size-ratios", "Ibex / C tool by message size (same boot)",
                "message size (bytes)", "ratio Ibex / C", true, true, Curve.twoSeries(
                        "latency (lower is better)", latency.ratios(),
                        "WRITE bandwidth (higher is better)", bandwidth.ratios())));
    }

    /** One point of the latency curve: a fresh ping-pong of {@code size}-byte messages against ib_send_lat. */
    private void latencyPoint(int size, int port, MeasuredCurve latency) {
        int n = settings.messages(size);
        String s = Integer.toString(size);
        watchdog.phase("curves: " + Curve.sizeLabel(size) + " ping-pong");
        try (PingPong ibex = PingPong.open(sides.apply(port), size, VmBench.OPEN_LIMIT)) {
            for (int i = 0; i < 3; i++) {
                ibex.run(Math.max(10, n / 2), VmBench.RUN_LIMIT); // the JIT (C1 only here) and the first touches
            }
            for (int r = 1; r <= rounds; r++) {
                double c = Double.NaN;
                double mine = Double.NaN;
                for (int k = 0; k < 2; k++) {
                    if ((k + r) % 2 == 0) {
                        c = tool.apply("ib_send_lat", new String[] {"-s", s, "-n", Integer.toString(n)})
                                .get("t_typical");
                    } else {
                        Histogram h = ibex.run(n, VmBench.RUN_LIMIT);
                        mine = h.getValueAtPercentile(50) / 2e3;
                    }
                }
                latency.add(size, "ping-pong " + Curve.sizeLabel(size) + " one-way typical (us)", c, mine);
                out.printf(Locale.ROOT, "curves %s latency round %d: ib_send_lat typical %.1f | Ibex p50/2 %.1f us "
                        + "(%s)%n", Curve.sizeLabel(size), r, c, mine, HostLoad.describe());
            }
        }
    }

    /** One point of the bandwidth curve: a fresh WRITE stream of {@code size}-byte messages against ib_write_bw. */
    private void writePoint(int size, int port, MeasuredCurve bandwidth) {
        int n = settings.messages(size);
        String s = Integer.toString(size);
        watchdog.phase("curves: " + Curve.sizeLabel(size) + " WRITE");
        int depth = Settings.writeDepth(size);
        try (Throughput ibex = Throughput.open(sides.apply(port), Throughput.Kind.WRITE, size, depth, 16,
                VmBench.OPEN_LIMIT)) {
            ibex.run(Math.max(16, n / 4), VmBench.RUN_LIMIT);
            for (int r = 1; r <= rounds; r++) {
                double c = Double.NaN;
                double mine = Double.NaN;
                for (int k = 0; k < 2; k++) {
                    if ((k + r) % 2 == 0) {
                        // MsgRate x size, not "BW average": perftest's MB is 2^20 B, ours 10^6
                        c = tool.apply("ib_write_bw", new String[] {"-s", s, "-n", Integer.toString(n), "-t",
                                Integer.toString(depth)}).get("MsgRate") * size;
                    } else {
                        mine = (double) n * size / (ibex.run(n, VmBench.RUN_LIMIT) / 1e3);
                    }
                }
                bandwidth.add(size, "WRITE " + Curve.sizeLabel(size) + " (MB/s)", c, mine);
                out.printf(Locale.ROOT, "curves %s WRITE round %d: ib_write_bw %.2f | Ibex %.2f MB/s (%s)%n",
                        Curve.sizeLabel(size), r, c, mine, HostLoad.describe());
            }
        }
    }

    /** The connection curve: aggregate 64 B messages per second both ways per connection count. */
    void connections(RatioTable table) {
        MeasuredCurve curve = new MeasuredCurve();
        int port = 7700;
        for (int n : settings.connections()) {
            int p = port++;
            point(table, n + " connections", () -> fleetPoint(n, p, curve));
        }
        curve.rows().forEach(table::add);
        table.note("curves by connections: Ibex = N RC connections between one client and one server loop, "
                + "each keeping " + IN_FLIGHT + " 64 B SENDs in flight, the server echoing, counted over " + settings.window().toMillis()
                + " ms (echoes x 2: a message each way); C = ib_send_bw -b -q N -t " + IN_FLIGHT + " (N QPs streaming "
                + "both ways, -r " + RX_DEPTH + ", " + settings.sends() + " SENDs per QP; with -b perftest prints the "
                + "sum of both sides' MsgRate): a stream, not an echo, with as many messages in flight per connection");
        Map<String, List<Curve.Point>> rates = Curve.twoSeries("ib_send_bw -b -q N", curve.baseline(),
                "Ibex echo fleet", curve.ibex());
        table.curve(new Curve("vm-curves-connections", "Aggregate 64 B message rate by connection count (rdma-core on "
                + "rxe, qemu TCG, same boot)", "connections", "k msg/s", true, false, rates));
        table.curve(new Curve("vm-curves-connections-ratios", "Ibex / ib_send_bw by connection count (same boot)",
                "connections", "ratio Ibex / C (higher is better)", true, false, Map.of("1 loop per side",
                        curve.ratios())));
    }

    /** One point of the connection curve: a fresh fleet of {@code n} connections against ib_send_bw -b -q n. */
    private void fleetPoint(int n, int port, MeasuredCurve curve) {
        watchdog.phase("curves: " + n + " connections");
        try (EchoFleet ibex = EchoFleet.open(groups.apply(port), 1, n, VmBench.MESSAGE, IN_FLIGHT,
                VmBench.OPEN_LIMIT)) {
            ibex.run(settings.window().dividedBy(2), VmBench.RUN_LIMIT);
            for (int r = 1; r <= rounds; r++) {
                double c = Double.NaN;
                double mine = Double.NaN;
                for (int k = 0; k < 2; k++) {
                    if ((k + r) % 2 == 0) {
                        c = tool.apply("ib_send_bw", new String[] {"-b", "-q", Integer.toString(n), "-s",
                                Integer.toString(VmBench.MESSAGE), "-t", Integer.toString(IN_FLIGHT), "-r",
                                Integer.toString(RX_DEPTH), "-n",
                                Integer.toString(settings.sends())}).get("MsgRate") * 1e3;
                    } else {
                        mine = 2 * ibex.run(settings.window(), VmBench.RUN_LIMIT) / 1e3; // a message each way
                    }
                }
                curve.add(n, n + " conn, 64 B both ways (k msg/s)", c, mine);
                out.printf(Locale.ROOT, "curves %d connections round %d: ib_send_bw -b %.1f | Ibex echo x 2 %.1f "
                        + "k msg/s (%s)%n", n, r, c, mine, HostLoad.describe());
            }
        }
    }

    /**
     * Measures one point; a failure (a C tool that crashed three times, an Ibex pair that did not connect) becomes a
     * note under the table and the other points still run.
     */
    private void point(RatioTable table, String what, Runnable measure) {
        try {
            measure.run();
        } catch (RuntimeException e) {
            e.printStackTrace(out);
            String m = String.valueOf(e.getMessage());
            int nl = m.indexOf('\n');
            table.note("curves: " + what + " FAILED, no point: " + e.getClass().getSimpleName() + ": "
                    + (nl < 0 ? m : m.substring(0, nl)));
        }
    }
}
