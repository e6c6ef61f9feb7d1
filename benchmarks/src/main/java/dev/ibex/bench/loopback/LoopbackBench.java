package dev.ibex.bench.loopback;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Throughput;
import dev.ibex.bench.jmh.AllocationCheck;
import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.ProcessCpu;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Results;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.bench.reactive.ReactivePingPong;
import dev.ibex.bench.rsocket.RSocketBench;
import dev.ibex.bench.scale.ScaleBench;
import dev.ibex.bench.setup.RdmaSetup;
import dev.ibex.bench.setup.SetupSide;
import dev.ibex.bench.setup.TcpSetup;
import dev.ibex.bench.setup.UdpHandshake;
import dev.ibex.bench.udp.HandoffPingPong;
import dev.ibex.bench.udp.UdpBlast;
import dev.ibex.bench.udp.UdpPingPong;
import dev.ibex.softroce.SoftRoceConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;

/**
 * Every host benchmark in one process and one table, each side against its baseline in interleaved rounds (the
 * order rotates, so a shared machine's load drift hits both alike): (a) 64 B ping-pong — Ibex RC SEND/RECV echo over the callback API between soft devices
 * on 127.0.0.3 and 127.0.0.2 vs {@link UdpPingPong} on the same addresses, once with both blocking when idle and once
 * with both spinning — target Ibex ≤ 1.3 × raw at p50, ≤ 1.5 × at p99, CPU per round trip ≤ 1.3 × when blocking;
 * (b) 64 KiB RDMA WRITE bandwidth vs {@link UdpBlast} (the same datagrams and flow control) — target ≥ 0.9 ×;
 * (c) {@link ReactivePingPong} vs the callback {@link PingPong} — target ≤ 1.1 ×; (d) RSocket request-response over
 * Ibex vs over TCP ({@link RSocketBench}) — target ≤ 1 × at p50; (e) the callback path's allocation per round trip
 * under JMH's gc profiler ({@link AllocationCheck}) — target ≈ 0; (f) connection setup ({@link RdmaSetup}) vs TCP
 * connect/accept ({@link TcpSetup}) and a raw UDP REQ/REP/RTU handshake ({@link UdpHandshake}) — target rate ≥ 1 × TCP.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ibex.bench.loopback.LoopbackBench [--rounds N] [--quick]
 *      [--only pingpong|write|send|reactive|rsocket|setup|jmh|scale|large|curves] [--no-jmh] [--jmh-log FILE]
 *      [--json FILE] [--plots DIR] [--help]
 * </pre>
 * {@code --only failover} runs {@link dev.ibex.bench.apm.FailoverBench} (APM failover time; its own options).
 * {@code --only large} runs the scale workload's large-message part alone (about two minutes).
 * {@code --only curves} runs the {@link ScalingCurves} (by message size and by connection count; two to three
 * minutes).
 * {@code --only soak|matrix|fuzz|cycles} runs the fault soak instead ({@link dev.ibex.bench.soak.SoakBench}, with its
 * own options); the default set leaves it out.
 * Soft-roce settings can be given as system properties ({@code -Dibex.softroce.poller.spinNanos=20000}).
 * Exit status 0 when every target is met, 1 when one is missed or a workload failed, 2 on bad usage ({@link Cli}).
 */
public final class LoopbackBench {
    static final int MESSAGE = 64;
    static final int WRITE = 64 * 1024;
    /** The soft device's path MTU on lo (interface MTU 65536 → IB MTU 4096). */
    static final int MTU = 4096;
    /** Bound of one run; far above a run's length (about a second), so hitting it means a stall. */
    static final Duration RUN_LIMIT = Duration.ofSeconds(8);
    static final Duration OPEN_LIMIT = Duration.ofSeconds(30);
    /**
     * Warm-up runs of half a round each before the write stream's measured rounds. Three were too few: on 2026-11-28
     * (idle host) the soft-roce WRITE path reached its steady rate only after ~13,000 writes of 64 KiB (rounds 1-5 of
     * a 14-round run at 382-604 MB/s, rounds 6-14 at 705-848), so a 4-round run measured mostly the JIT's warm-up.
     */
    static final int WRITE_WARM_UP = 12;
    /** Stalls tolerated per workload before the harness gives up. */
    static final int MAX_STALLS = 6;

    private final PrintStream out;
    private final int rounds;
    private final int roundTrips;
    private final int writes;
    private final Watchdog watchdog;
    /** Connections per side and round of the setup workload's concurrent run (its sequential run: a fifth). */
    private final int setups;

    LoopbackBench(PrintStream out, int rounds, boolean quick, Watchdog watchdog) {
        this(out, rounds, quick ? 2_000 : 20_000, quick ? 200 : 2_000, quick ? 200 : 1_000, watchdog);
    }

    /**
     * A harness doing {@code roundTrips} round trips, {@code writes} 64 KiB WRITEs and {@code setups} connection
     * setups per side and round.
     */
    LoopbackBench(PrintStream out, int rounds, int roundTrips, int writes, int setups, Watchdog watchdog) {
        this.out = out;
        this.rounds = rounds;
        this.roundTrips = roundTrips;
        this.writes = writes;
        this.setups = setups;
        this.watchdog = watchdog;
    }

    public static void main(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--only") && SOAK.contains(args[i + 1])) {
                dev.ibex.bench.soak.SoakBench.main(args); // the fault soak: a set of its own
                return;
            }
            if (args[i].equals("--only") && args[i + 1].equals("failover")) {
                // APM failover time at timer scale 1 (its own grid and options)
                List<String> rest = new java.util.ArrayList<>(List.of(args));
                rest.remove(i + 1);
                rest.remove(i);
                dev.ibex.bench.apm.FailoverBench.main(rest.toArray(String[]::new));
                return;
            }
        }
        System.exit(Cli.execute(new Command(), args));
    }

    /** The workloads {@code --only} hands to {@link dev.ibex.bench.soak.SoakBench}. */
    static final List<String> SOAK = List.of("soak", "matrix", "fuzz", "cycles");
    /** The workloads this harness runs itself. */
    static final List<String> WORKLOADS = List.of("pingpong", "write", "send", "reactive", "rsocket", "setup", "jmh",
            "scale", "large", "curves");

    /** The command line ({@code ./ibex bench [options]}). */
    @CommandLine.Command(name = "ibex bench", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"The host benchmarks: soft-roce on loopback vs raw Java UDP, cm-reactive vs callbacks, "
                    + "RSocket over Ibex vs over TCP, callback-path allocation (JMH -prof gc). One table, each "
                    + "figure against a baseline measured in the same run; the table also as JSON (--json)."},
            footer = {"", "Also: --only failover [--cuts N] [--timeouts 8,10,12,14] [--retries 1,3,7] (APM failover "
                    + "time; --only failover --help), --only soak|matrix|fuzz|cycles [soak options] (the fault soak; "
                    + "--only soak --help). Soft-roce settings as system properties "
                    + "(-Dibex.softroce.poller.spinNanos=20000).",
                    "Exit status: 0 every target met, 1 a target missed or a workload failed, 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--rounds", paramLabel = "N", defaultValue = "4",
                description = "interleaved rounds per workload (default ${DEFAULT-VALUE})")
        int rounds;

        @CommandLine.Option(names = "--quick", description = "a smoke run: a tenth of the round trips and writes")
        boolean quick;

        @CommandLine.Option(names = "--only", paramLabel = "WORKLOAD",
                description = "one workload: pingpong, write, send, reactive, rsocket, setup, jmh, scale (~10 min), "
                        + "large (the scale workload's large messages, ~2 min) or curves (the scaling curves by message "
                        + "size and connection count, ~2-3 min); default: all but scale, large and curves")
        String only;

        @CommandLine.Option(names = "--no-jmh", description = "leave out the JMH allocation check")
        boolean noJmh;

        @CommandLine.Option(names = "--jmh-log", paramLabel = "FILE",
                defaultValue = "benchmarks/target/jmh-callback-path.log", description = "JMH's log (default "
                        + "${DEFAULT-VALUE})")
        Path jmhLog;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", description = "the table as JSON (default "
                + "benchmarks/target/loopback-bench.json, with --only W loopback-bench-W.json)")
        Path json;

        @CommandLine.Option(names = "--plots", paramLabel = "DIR", description = "draw the measured curves (PNG) "
                + "and copy the JSON into DIR, e.g. docs/plots")
        Path plots;

        @Override
        public Integer call() throws IOException {
            if (rounds < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rounds must be at least 1");
            }
            if (only != null && !WORKLOADS.contains(only)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--only " + only + ": one of "
                        + String.join(", ", WORKLOADS) + ", failover, " + String.join(", ", SOAK));
            }
            if (json == null) {
                json = Path.of("benchmarks/target/loopback-bench" + (only == null ? "" : "-" + only) + ".json");
            }
            return run(this);
        }
    }

    static int run(Command c) throws IOException {
        String only = c.only;
        boolean large = "large".equals(only); // the scale workload's large messages alone
        boolean scale = "scale".equals(only) || large;
        Watchdog w = Watchdog.start(Duration.ofMinutes(scale ? 40 : 10));
        LoopbackBench bench = new LoopbackBench(System.out, c.rounds, c.quick, w);
        RatioTable table = new RatioTable("Ibex on this host: soft-roce on loopback vs raw Java UDP, cm-reactive vs "
                + "callbacks, RSocket over Ibex vs over TCP, callback-path allocation (" + HostLoad.describe()
                + " at start)", "baseline");
        if (scale) {
            // the scale workload: its own processes and table (not in the default set: it takes ~10 minutes)
            table = ScaleBench.table();
        }
        if ("curves".equals(only)) { // the scaling curves (issue 17): their own table, not in the default set
            table = ScalingCurves.table();
        }
        try {
            if (scale) {
                ScaleBench.Settings settings = c.quick ? ScaleBench.Settings.QUICK : ScaleBench.Settings.FULL;
                ScaleBench.run(large ? settings.only("large") : settings, System.out, w, table);
            }
            if ("curves".equals(only)) {
                new ScalingCurves(ScalingCurves.Settings.of(c.quick, c.rounds), System.out, w).run(table);
            }
            if (only == null || only.equals("pingpong")) {
                bench.pingPong(table);
            }
            if (only == null || only.equals("write")) {
                bench.writeBandwidth(table);
            }
            if (only == null || only.equals("send")) {
                bench.sendRate(table);
            }
            if (only == null || only.equals("reactive")) {
                bench.reactiveVsCallback(table);
            }
            if (only == null || only.equals("rsocket")) {
                RSocketBench rsocket = RSocketBench.forRun(System.out, Math.max(1, c.rounds - 1), c.quick, w);
                rsocket.run(table);
                Path dir = c.plots != null ? c.plots : Path.of("benchmarks/target");
                table.note("  rsocket plot: " + rsocket.plot(dir.resolve("rsocket-bench.png")));
            }
            if (only == null || only.equals("setup")) {
                bench.setup(table);
            }
            if (!c.noJmh && (only == null || only.equals("jmh"))) {
                w.phase("JMH callback path with -prof gc (log: " + c.jmhLog + ")");
                Files.createDirectories(c.jmhLog.toAbsolutePath().getParent());
                AllocationCheck.run(List.of("fake", "soft-roce"), c.jmhLog, System.out).forEach(table::add);
                table.note("alloc: CallbackPathBenchmark (free-running ping-pong on the loops, one op = one round "
                        + "trip) under JMH -prof gc, gc.alloc.rate.norm of the whole fork; JMH log " + c.jmhLog);
            }
        } finally {
            table.note(HostLoad.describe() + " at end");
            table.print(System.out);
            Results.write(table, c.json, c.plots, System.out);
        }
        return Cli.status(table.allMet());
    }

    /** How long a spinning side's loop spins before it blocks: far longer than a round trip, so it never blocks. */
    static final long SPIN_NANOS = 50_000_000L;

    void pingPong(RatioTable table) {
        pingPong(table, false);
        pingPong(table, true);
    }

    /**
     * The ping-pong against raw UDP, both blocking when idle (Ibex's default loops, blocking sockets) or both spinning
     * (loops that spin {@link #SPIN_NANOS} reading their sockets before they block, non-blocking sockets read in a busy
     * loop); the RC-shaped floor in the blocking mode only.
     */
    void pingPong(RatioTable table, boolean spinning) {
        String mode = spinning ? "spinning " : "";
        Rounds p50 = new Rounds("soft-roce/UDP ping-pong 64 B " + mode + "p50 (us)", Target.atMost(1.3));
        Rounds p99 = new Rounds("soft-roce/UDP ping-pong 64 B " + mode + "p99 (us)", Target.atMost(1.5));
        Rounds floor = new Rounds("  p50 vs RC-shaped UDP (hand-off+ACK)", Target.none());
        Rounds cpu = new Rounds("  CPU per round trip (us, process)" + (spinning ? ", spinning" : ""),
                spinning ? Target.none() : Target.atMost(1.3));
        // the default loops spin a little before they block (an adaptive window, soft-roce's poller.adaptiveSpinNanos);
        // loops that block at once are measured beside them, as information
        Rounds stillP50 = new Rounds("  p50, loops that never spin (adaptiveSpinNanos=0)", Target.none());
        Rounds stillCpu = new Rounds("  CPU per round trip, loops that never spin", Target.none());
        watchdog.phase("opening the " + mode + "ping-pong");
        try (UdpPingPong raw = UdpPingPong.open(LoopbackHosts.server(), LoopbackHosts.client(), MESSAGE, spinning);
                HandoffPingPong shaped = spinning ? null
                        : HandoffPingPong.open(LoopbackHosts.server(), LoopbackHosts.client(), MESSAGE);
                Recovering<PingPong> ibex = new Recovering<>("the " + mode + "callback ping-pong",
                        () -> PingPong.open(LoopbackHosts.softRoce(spinning ? 7476 : 7471, spinning ? SPIN_NANOS : 0),
                                MESSAGE, OPEN_LIMIT), MAX_STALLS, out);
                Recovering<PingPong> still = spinning ? null : new Recovering<>("the callback ping-pong that never spins",
                        () -> PingPong.open(LoopbackHosts.softRoce(7477, 0, 0), MESSAGE, OPEN_LIMIT), MAX_STALLS, out)) {
            watchdog.phase("warming up the " + mode + "ping-pong");
            for (int i = 0; i < 3; i++) {
                raw.run(roundTrips / 2);
                if (shaped != null) {
                    shaped.run(roundTrips / 2);
                }
                ibex.run(p -> p.run(roundTrips / 2, RUN_LIMIT));
                if (still != null) {
                    still.run(p -> p.run(roundTrips / 2, RUN_LIMIT));
                }
            }
            int[] order = shaped == null ? new int[] {0, 2} : new int[] {0, 1, 3, 2}; // Ibex's default in slot 2
            int sides = order.length;
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase(mode + "ping-pong round " + r);
                Histogram[] h = new Histogram[4];
                long[] cpuNanos = new long[4];
                for (int k = 0; k < sides; k++) { // rotate the order: every side goes first, (middle) and last
                    int slot = order[(k + r) % sides];
                    long c0 = ProcessCpu.nanos();
                    h[slot] = switch (slot) {
                        case 0 -> raw.run(roundTrips);
                        case 1 -> shaped.run(roundTrips);
                        case 3 -> still.run(p -> p.run(roundTrips, RUN_LIMIT));
                        default -> ibex.run(p -> p.run(roundTrips, RUN_LIMIT));
                    };
                    cpuNanos[slot] = ProcessCpu.nanos() - c0;
                }
                p50.add(micros(h[0], 50), micros(h[2], 50));
                p99.add(micros(h[0], 99), micros(h[2], 99));
                if (shaped != null) {
                    floor.add(micros(h[1], 50), micros(h[2], 50));
                    stillP50.add(micros(h[0], 50), micros(h[3], 50));
                    stillCpu.add(cpuNanos[0] / 1e3 / roundTrips, cpuNanos[3] / 1e3 / roundTrips);
                }
                cpu.add(cpuNanos[0] / 1e3 / roundTrips, cpuNanos[2] / 1e3 / roundTrips);
                out.printf(Locale.ROOT, "%sping-pong round %d: raw p50 %.1f p99 %.1f | %sIbex p50 %.1f p99 %.1f us; "
                        + "CPU/RT raw %.1f Ibex %.1f us (%s)%n", mode, r, micros(h[0], 50), micros(h[0], 99),
                        shaped == null ? "" : String.format(Locale.ROOT, "RC-shaped p50 %.1f p99 %.1f | ",
                                micros(h[1], 50), micros(h[1], 99)),
                        micros(h[2], 50), micros(h[2], 99), cpuNanos[0] / 1e3 / roundTrips,
                        cpuNanos[2] / 1e3 / roundTrips, HostLoad.describe());
                if (still != null) {
                    out.printf(Locale.ROOT, "%sping-pong round %d, loops that never spin: p50 %.1f p99 %.1f us, CPU/RT "
                            + "%.1f us%n", mode, r, micros(h[3], 50), micros(h[3], 99), cpuNanos[3] / 1e3 / roundTrips);
                }
            }
            noteStalls(table, ibex);
            if (still != null) {
                noteStalls(table, still);
            }
        }
        table.add(p50.comparison()).add(p99.comparison());
        if (!spinning) {
            table.add(floor.comparison());
        }
        table.add(cpu.comparison());
        if (!spinning) {
            table.add(stillP50.comparison()).add(stillCpu.comparison());
        }
        if (spinning) {
            table.note("spinning ping-pong: the same, both loops spinning " + SPIN_NANOS / 1_000_000 + " ms (soft-roce "
                    + "poller.spinNanos: reading their sockets and CQs) before they block, vs the same sockets "
                    + "non-blocking, each side reading in a busy loop (each side keeps a core)");
        } else {
            table.note("ping-pong: " + roundTrips + " round trips per round; Ibex RC SEND echo (callback API, one loop "
                    + "per side, soft devices 127.0.0.2/.3, the default idle policy: a spin window that adapts up to "
                    + SoftRoceConfig.DEFAULT_POLLER_ADAPTIVE_SPIN_NANOS / 1000 + " us, then block) vs two connected "
                    + "blocking DatagramChannels on the same addresses;");
            table.note("  'loops that never spin': the same echo with poller.adaptiveSpinNanos=0 (block at once)");
            table.note("  RC-shaped UDP = receive thread per side handing off to an application thread, an ACK "
                    + "datagram per message, ACKs waking the application (the provider's design, nothing else)");
        }
    }

    void writeBandwidth(RatioTable table) {
        Rounds bw = new Rounds("soft-roce/UDP WRITE 64 KiB (MB/s)", Target.atLeast(0.9));
        Rounds cpu = new Rounds("  CPU per 4 KiB packet (us, process)", Target.none());
        long retransmissionsBefore;
        watchdog.phase("opening the write stream");
        try (UdpBlast raw = UdpBlast.open(LoopbackHosts.server(), LoopbackHosts.client(), WRITE, MTU, 4 << 20);
                Recovering<Throughput> ibex = new Recovering<>("the WRITE stream", () -> Throughput.open(
                        LoopbackHosts.softRoce(7472), Throughput.Kind.WRITE, WRITE, 32, 16, OPEN_LIMIT), MAX_STALLS,
                        out)) {
            watchdog.phase("warming up the write stream");
            for (int i = 0; i < WRITE_WARM_UP; i++) {
                raw.run(writes / 2);
                ibex.run(t -> t.run(writes / 2, RUN_LIMIT));
            }
            retransmissionsBefore = raw.retransmissions();
            long ibexRetransmissionsBefore = ibex.run(t -> t.counter("retransmissions"));
            long packets = (long) writes * raw.packetsPerMessage();
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("write round " + r);
                long[] nanos = new long[2];
                long[] cpuNanos = new long[2];
                alternate(r, () -> raw.run(writes), () -> ibex.run(t -> t.run(writes, RUN_LIMIT)), nanos, cpuNanos);
                double b = megabytesPerSecond(writes, WRITE, nanos[0]);
                double m = megabytesPerSecond(writes, WRITE, nanos[1]);
                bw.add(b, m);
                cpu.add(cpuNanos[0] / 1e3 / packets, cpuNanos[1] / 1e3 / packets);
                out.printf(Locale.ROOT, "write round %d: raw %.0f MB/s | Ibex %.0f MB/s; CPU/packet raw %.2f Ibex %.2f us "
                        + "(%s)%n", r, b, m, cpuNanos[0] / 1e3 / packets, cpuNanos[1] / 1e3 / packets,
                        HostLoad.describe());
            }
            table.add(bw.comparison()).add(cpu.comparison());
            table.note("write: " + writes + " x 64 KiB per round; Ibex RDMA WRITE (send queue 32, callback API) vs a UDP "
                    + "blast of the same datagrams (" + raw.packetsPerMessage() + " per message, 4096 B payload + RoCE "
                    + "header sizes), AckReq every 64 and at message end, 128 in flight; retransmissions without "
                    + "injected faults: baseline " + (raw.retransmissions() - retransmissionsBefore) + ", Ibex "
                    + (ibex.run(t -> t.counter("retransmissions")) - ibexRetransmissionsBefore));
            noteStalls(table, ibex);
        }
    }

    /**
     * One round of a stream measured both ways, the order rotating with {@code round} so that drifting load hits both
     * alike: wall and process CPU nanoseconds of the baseline into index 0, of Ibex into index 1.
     */
    static void alternate(int round, java.util.function.LongSupplier baseline,
            java.util.function.LongSupplier ibex, long[] nanos, long[] cpuNanos) {
        for (int k = 0; k < 2; k++) {
            int which = (k + round) % 2;
            long c0 = ProcessCpu.nanos();
            nanos[which] = which == 0 ? baseline.getAsLong() : ibex.getAsLong();
            cpuNanos[which] = ProcessCpu.nanos() - c0;
        }
    }

    /**
     * SEND 64 B streaming: Ibex's message rate (send queue 128, the receiver's window 512, perftest's defaults) against
     * a UDP blast of 64 B datagrams with the same acknowledgement scheme, and the retransmissions Ibex made without
     * any injected fault (to be 0: an overrun is prevented, not repaired).
     */
    void sendRate(RatioTable table) {
        Rounds rate = new Rounds("soft-roce/UDP SEND 64 B (k msg/s)", Target.atLeast(0.9));
        Rounds cpu = new Rounds("  CPU per 64 B message (us, process)", Target.none());
        int sends = writes * 64;
        watchdog.phase("opening the send stream");
        try (UdpBlast raw = UdpBlast.open(LoopbackHosts.server(), LoopbackHosts.client(), MESSAGE, MTU, 4 << 20);
                Recovering<Throughput> ibex = new Recovering<>("the SEND stream", () -> Throughput.open(
                        LoopbackHosts.softRoce(7475), Throughput.Kind.SEND, MESSAGE, 128, 512, OPEN_LIMIT), MAX_STALLS,
                        out)) {
            watchdog.phase("warming up the send stream");
            for (int i = 0; i < 3; i++) {
                raw.run(sends / 2);
                ibex.run(t -> t.run(sends / 2, RUN_LIMIT));
            }
            long rawBefore = raw.retransmissions();
            long ibexBefore = ibex.run(t -> t.counter("retransmissions"));
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("send round " + r);
                long[] nanos = new long[2];
                long[] cpuNanos = new long[2];
                alternate(r, () -> raw.run(sends), () -> ibex.run(t -> t.run(sends, RUN_LIMIT)), nanos, cpuNanos);
                double b = sends / (nanos[0] / 1e6);
                double m = sends / (nanos[1] / 1e6);
                rate.add(b, m);
                cpu.add(cpuNanos[0] / 1e3 / sends, cpuNanos[1] / 1e3 / sends);
                out.printf(Locale.ROOT, "send round %d: raw %.0f k msg/s | Ibex %.0f k msg/s; CPU/message raw %.2f Ibex "
                        + "%.2f us (%s)%n", r, b, m, cpuNanos[0] / 1e3 / sends, cpuNanos[1] / 1e3 / sends,
                        HostLoad.describe());
            }
            table.add(rate.comparison()).add(cpu.comparison());
            table.note("send: " + sends + " x 64 B per round; Ibex SEND (send queue 128, receive window 512, callback "
                    + "API, credits) vs a UDP blast of 64 B datagrams (AckReq every 64, 128 in flight); retransmissions "
                    + "without injected faults: baseline " + (raw.retransmissions() - rawBefore) + ", Ibex "
                    + (ibex.run(t -> t.counter("retransmissions")) - ibexBefore));
            noteStalls(table, ibex);
        }
    }

    /** Concurrent connects of the setup workload's rate run. */
    static final int SETUP_IN_FLIGHT = 64;
    /**
     * Warm-up runs of each kind per side before the setup workload's first round, the early one: TCP's handshake is
     * the kernel's and always warm.
     */
    static final int SETUP_WARM_UP = 8;
    /**
     * Connections Ibex sets up (and closes) before the measured setup rounds, at most 32 runs' worth (a smoke run
     * warms up less): on this 2-core machine the JIT keeps speeding Ibex's setup up for about 30,000 connections
     * (docs/benchmarks.md, "Connection setup on loopback"), so the early round after {@value #SETUP_WARM_UP} warm-up
     * runs is reported apart, as information.
     */
    static final int SETUP_WARM_CONNECTIONS = 32_000;

    /**
     * Connection setup: soft-roce through the callback API ({@link RdmaSetup}, default connection options) against
     * TCP connect/accept ({@link TcpSetup}) and against a raw UDP REQ/REP/RTU handshake ({@link UdpHandshake}), all
     * between 127.0.0.2 and 127.0.0.3, the order rotating per round. Rate: {@code setups} connections with
     * {@value #SETUP_IN_FLIGHT} in flight, first connect to last established — target ≥ 1 × TCP. Latency: a fifth as
     * many one at a time, connect to established (each closed before the next) — for information.
     */
    void setup(RatioTable table) {
        Rounds rate = new Rounds("soft-roce/TCP setup rate (conn/s, " + SETUP_IN_FLIGHT + " in flight)",
                Target.atLeast(1.0));
        Rounds rateUdp = new Rounds("  setup rate vs raw UDP handshake", Target.none());
        Rounds p50 = new Rounds("soft-roce/TCP setup latency p50 (us)", Target.none());
        Rounds p50Udp = new Rounds("  setup latency p50 vs raw UDP handshake", Target.none());
        Rounds p99 = new Rounds("soft-roce/TCP setup latency p99 (us)", Target.none());
        Rounds earlyRate = new Rounds("  setup rate, early round (JIT still compiling)", Target.none());
        Rounds earlyP50 = new Rounds("  setup latency p50, early round (JIT still compiling)", Target.none());
        int sequential = Math.max(1, setups / 5);
        int warmed = 0;
        watchdog.phase("opening the setup workload");
        try (TcpSetup tcp = TcpSetup.open(LoopbackHosts.server(), LoopbackHosts.client());
                UdpHandshake udp = UdpHandshake.open(LoopbackHosts.server(), LoopbackHosts.client());
                RdmaSetup ibex = RdmaSetup.open(LoopbackHosts.softRoce(7476), OPEN_LIMIT)) {
            SetupSide[] sides = {tcp, udp, ibex};
            watchdog.phase("warming up the setup workload");
            for (int i = 0; i < SETUP_WARM_UP; i++) {
                for (SetupSide s : sides) {
                    s.sequential(sequential);
                    s.concurrent(setups, SETUP_IN_FLIGHT);
                }
                warmed += sequential + setups;
            }
            watchdog.phase("the setup workload's early round");
            double[] early = new double[3];
            Histogram[] earlyH = new Histogram[3];
            setupRound(sides, 0, sequential, early, earlyH);
            earlyRate.add(early[0], early[2]);
            earlyP50.add(micros(earlyH[0], 50), micros(earlyH[2], 50));
            warmed += sequential + setups;
            watchdog.phase("warming up Ibex's setup");
            int warmTo = (int) Math.min(SETUP_WARM_CONNECTIONS, 32L * setups); // a smoke run's is shorter
            while (warmed < warmTo) {
                ibex.sequential(sequential);
                ibex.concurrent(setups, SETUP_IN_FLIGHT);
                warmed += sequential + setups;
            }
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("setup round " + r);
                double[] perSecond = new double[3];
                Histogram[] h = new Histogram[3];
                setupRound(sides, r, sequential, perSecond, h);
                rate.add(perSecond[0], perSecond[2]);
                rateUdp.add(perSecond[1], perSecond[2]);
                p50.add(micros(h[0], 50), micros(h[2], 50));
                p50Udp.add(micros(h[1], 50), micros(h[2], 50));
                p99.add(micros(h[0], 99), micros(h[2], 99));
                out.printf(Locale.ROOT, "setup round %d: rate TCP %.0f | UDP %.0f | Ibex %.0f conn/s; latency p50/p99 "
                        + "TCP %.0f/%.0f | UDP %.0f/%.0f | Ibex %.0f/%.0f us (%s)%n", r, perSecond[0], perSecond[1],
                        perSecond[2], micros(h[0], 50), micros(h[0], 99), micros(h[1], 50), micros(h[1], 99),
                        micros(h[2], 50), micros(h[2], 99), HostLoad.describe());
            }
        }
        table.add(rate.comparison()).add(rateUdp.comparison()).add(p50.comparison()).add(p50Udp.comparison())
                .add(p99.comparison()).add(earlyRate.comparison()).add(earlyP50.comparison());
        table.note("setup: per round " + setups + " connections with " + SETUP_IN_FLIGHT + " in flight (first connect "
                + "to last established) and " + sequential + " one at a time (connect to established, then closed), "
                + "after " + SETUP_WARM_UP + " warm-up runs of each, an early round (its rows: JIT still compiling) "
                + "and Ibex warmed to " + warmed + " connections; "
                + "Ibex Connection.connect on default options to a Listener (soft devices 127.0.0.2/.3) vs java.nio "
                + "TCP connect/accept and a UDP REQ/REP/RTU exchange of 256 B datagrams between the same addresses");
    }

    /**
     * One setup round: each side's rate ({@code perSecond}, connections per second) and sequential latencies ({@code
     * h}), the order rotating with {@code r} so that every side goes first, middle and last.
     */
    private void setupRound(SetupSide[] sides, int r, int sequential, double[] perSecond, Histogram[] h) {
        for (int k = 0; k < sides.length; k++) {
            int which = (k + r) % sides.length;
            perSecond[which] = setups / (sides[which].concurrent(setups, SETUP_IN_FLIGHT) / 1e9);
            h[which] = sides[which].sequential(sequential);
        }
    }

    /**
     * cm-reactive against the callback API: {@link ReactivePingPong} and {@link PingPong} on identical soft-roce
     * hosts (same settings, same connection options), interleaved rounds, target reactive ≤ 1.1 × callback at p50
     * and p99; p99.9 is shown for information (a few dozen samples per round, decided by the machine's scheduler).
     */
    void reactiveVsCallback(RatioTable table) {
        Rounds p50 = new Rounds("reactive/callback ping-pong p50 (us)", Target.atMost(1.1));
        Rounds p99 = new Rounds("reactive/callback ping-pong p99 (us)", Target.atMost(1.1));
        Rounds p999 = new Rounds("reactive/callback ping-pong p99.9 (us)", Target.none());
        watchdog.phase("opening the reactive and callback ping-pongs");
        try (Recovering<PingPong> callback = new Recovering<>("the callback ping-pong (vs reactive)",
                () -> PingPong.open(LoopbackHosts.softRoce(7473), MESSAGE, OPEN_LIMIT), MAX_STALLS, out);
                Recovering<ReactivePingPong> reactive = new Recovering<>("the reactive ping-pong",
                        () -> ReactivePingPong.open(LoopbackHosts.softRoce(7474), MESSAGE, OPEN_LIMIT), MAX_STALLS,
                        out)) {
            watchdog.phase("warming up the reactive and callback ping-pongs");
            for (int i = 0; i < 3; i++) {
                callback.run(p -> p.run(roundTrips / 2, RUN_LIMIT));
                reactive.run(p -> p.run(roundTrips / 2, RUN_LIMIT));
            }
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("reactive/callback round " + r);
                Histogram base;
                Histogram mine;
                if (r % 2 == 1) {
                    base = callback.run(p -> p.run(roundTrips, RUN_LIMIT));
                    mine = reactive.run(p -> p.run(roundTrips, RUN_LIMIT));
                } else {
                    mine = reactive.run(p -> p.run(roundTrips, RUN_LIMIT));
                    base = callback.run(p -> p.run(roundTrips, RUN_LIMIT));
                }
                p50.add(micros(base, 50), micros(mine, 50));
                p99.add(micros(base, 99), micros(mine, 99));
                p999.add(micros(base, 99.9), micros(mine, 99.9));
                out.printf(Locale.ROOT, "reactive/callback round %d: callback p50 %.1f p99 %.1f p99.9 %.1f | reactive "
                        + "p50 %.1f p99 %.1f p99.9 %.1f us (%s)%n", r, micros(base, 50), micros(base, 99),
                        micros(base, 99.9), micros(mine, 50), micros(mine, 99), micros(mine, 99.9),
                        HostLoad.describe());
            }
            noteStalls(table, callback, reactive);
        }
        table.add(p50.comparison()).add(p99.comparison()).add(p999.comparison());
        table.note("reactive/callback: " + roundTrips + " round trips per round; RdmaServer.handle(c -> c.send(c"
                + ".receive())) and an RdmaClient sending from a sink per echo vs the callback ping-pong above; each "
                + "on its own pair of soft devices 127.0.0.2/.3, same settings");
    }

    /** Says in the table how many runs of each workload stalled and were repeated on a fresh connection. */
    private static void noteStalls(RatioTable table, Recovering<?>... workloads) {
        for (Recovering<?> w : workloads) {
            if (w.stalls() > 0) {
                table.note("  " + w.name() + ": " + w.stalls() + " run(s) had no outcome within "
                        + RUN_LIMIT.toSeconds() + " s and were repeated on a fresh connection (the log line of each says "
                        + "whether it was stalled, i.e. a lost wake-up, or slow: a host without a free core per "
                        + "spinning side)");
            }
        }
    }

    static double micros(Histogram h, double percentile) {
        return h.getValueAtPercentile(percentile) / 1000.0;
    }

    static double megabytesPerSecond(int messages, int size, long nanos) {
        return (double) messages * size / nanos * 1e9 / 1e6;
    }
}
