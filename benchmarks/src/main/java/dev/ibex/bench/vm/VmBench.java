package dev.ibex.bench.vm;

import dev.ibex.bench.callback.ConnectionSetup;
import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Sides;
import dev.ibex.bench.callback.Throughput;
import dev.ibex.bench.perftest.CmtimeResult;
import dev.ibex.bench.perftest.Perftest;
import dev.ibex.bench.perftest.PerftestResult;
import dev.ibex.bench.perftest.ToolRun;
import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.verbs.provider.RdmaCoreProvider;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;

/**
 * The rdma-core targets, run inside the Soft-RoCE VM ({@code lab/rxe-vm}, {@code ./ibex bench --vm}): the Ibex
 * callback workloads on the rdma-core provider against rdma-core's own C tools, all on one RDMA device (rxe0) in
 * the same boot and the same process, in interleaved rounds whose order alternates:
 * <ul>
 *   <li>64 B ping-pong, one-way latency (round trip / 2, as perftest reports it) vs {@code ib_send_lat}'s
 *       t_typical — target ≤ 1.1 ×;</li>
 *   <li>{@code c2} ({@link C2Latency}): the same ping-pongs in a child JVM compiled by C2 alone, busy-polling against
 *       {@code ib_send_lat} and in CQ-event mode against {@code ib_send_lat -e} — target ≤ 1.1 × each — with the
 *       minimal Java ping-pong in a C2 JVM beside them (this JVM and the other children run C1 only);</li>
 *   <li>64 B SEND message rate vs {@code ib_send_bw} (tx depth 128, rx depth 512 on both) — target ≥ 0.9 ×;</li>
 *   <li>64 KiB RDMA WRITE bandwidth vs {@code ib_write_bw} — target ≥ 0.95 ×;</li>
 *   <li>connection setup rate ({@code Connection.connect} of N connections at once, to ESTABLISHED) vs the
 *       {@code cmtime} client's create id + resolve addr + resolve route + create qp + connect, both against the
 *       same {@code cmtime} server — target ≥ 0.9 ×;</li>
 *   <li>{@code steps} ({@link CmtimeWorkloads}, as {@code accept}): per cmtime step (create id … destroy) the C
 *       client's time against the Java port's ({@code samples}' {@code Cmtime}, step by step through the SPI, in a
 *       child JVM), same N, same C server: warm (the child JVM's last of {@value CmtimeWorkloads#STEP_RUNS} runs) —
 *       target ≤ 1.11 × (≥ 0.9 × the rate) — and cold (its first run); beside them, info rows, the minimal Java
 *       client ({@link MinimalCmtime}: cmtime's calls through the SPI, no event loop) warm;</li>
 *   <li>{@code accept}: the C client's {@code connect} step for {@value CmtimeWorkloads#ACCEPTS} connections against
 *       the Java port's server (cm-core's {@code Listener}, in a child JVM; cold: its first 200, warm: its fifth) vs
 *       against the C {@code cmtime} server — target ≤ 1.5 ×; an info row: against {@link MinimalCmtime}'s server,
 *       warm;</li>
 *   <li>{@code curves} (only when named): the scaling curves ({@link VmCurves}) — latency and WRITE bandwidth by
 *       message size (2 B … 1 MiB) against {@code ib_send_lat} and {@code ib_write_bw}, and the 64 B message rate
 *       by connection count (1 … 256) against {@code ib_send_bw -b -q N}; reports, with a PNG per curve next to the
 *       JSON.</li>
 * </ul>
 * With {@code --aot}, {@code steps} and {@code accept} first train a JDK AOT cache ({@link AotCache}: one child JVM
 * doing the workload with {@code -XX:AOTCacheOutput}, into the results directory) and then, in every round, run a
 * third child JVM from that cache beside the plain cold one: the cold rows with and without the cache, next to warm.
 * Device and address come from {@code IBEX_VM_DEV} / {@code IBEX_VM_ADDR} (set by {@code lab/rxe-vm}). A workload
 * that fails gives a NO DATA row and the others still run. Exit status 0 when every target is met, 1 when one is
 * missed (or has no data), 2 on a usage error ({@link Cli}).
 *
 * <pre>
 * lab/rxe-vm -- java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.ibex.bench.vm.VmBench [--rounds N] [--quick] [--only latency|c2|rate|write|setup|floor|steps|accept|curves]
 *     [--profile DIR] [--aot] [--spin-nanos N]
 *     [--json FILE] [--help]
 * </pre>
 */
public final class VmBench {
    static final int MESSAGE = 64;
    static final int WRITE = 64 * 1024;
    /** The busy-poll row's {@code LoopOptions.cqPollSpin}: longer than a round trip here, so the loops stay hot. */
    static final Duration CQ_POLL_SPIN = Duration.ofMillis(20);
    static final Duration RUN_LIMIT = Duration.ofSeconds(90);
    static final Duration OPEN_LIMIT = Duration.ofSeconds(60);

    private final PrintStream out;
    private final Watchdog watchdog;
    private final Perftest perftest;
    private final String address;
    private final int rounds;
    /** {@code --quick}: fewer round trips, messages and connections. */
    private final boolean quick;
    private final int roundTrips;
    private final int sends;
    private final int writes;
    private final int connections;
    /** The {@code steps} and {@code accept} workloads. */
    private final CmtimeWorkloads cmtime;
    /** The minimal ping-pongs' server and client processes ({@code floor}, {@code c2}). */
    private final PingPongProcesses pairs;
    /** The rdma-core provider's settings for the Ibex side (the poller's spin time). */
    private final ProviderConfig config;
    /** C tool runs repeated because they failed or reported no figure (noted under the table). */
    private int retries;

    VmBench(PrintStream out, Watchdog watchdog, String device, String address, int rounds, boolean quick,
            ProviderConfig config, Path profile, Path aot) {
        this.out = out;
        this.config = config;
        this.watchdog = watchdog;
        this.perftest = new Perftest(device, address);
        this.address = address;
        this.rounds = rounds;
        this.quick = quick;
        this.roundTrips = quick ? 300 : 1_000;
        this.sends = quick ? 5_000 : 20_000;
        this.writes = quick ? 300 : 1_000;
        this.connections = quick ? 20 : 50;
        // a C2-only server JVM took up to 58 s to listen in the guest (2026-11-27 20:18 UTC): the pairs wait longer
        this.pairs = new PingPongProcesses(address, C2Latency.CHILD_LIMIT, RUN_LIMIT);
        this.cmtime = new CmtimeWorkloads(out, watchdog, perftest, address, rounds, quick ? 20 : 100, profile, aot);
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The workloads {@code --only} picks from. */
    static final List<String> WORKLOADS = List.of("latency", "c2", "rate", "write", "setup", "floor", "steps",
            "accept", "curves");

    /** The command line ({@code ./ibex bench --vm [options]}). */
    @CommandLine.Command(name = "ibex bench --vm", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"The rdma-core targets inside the Soft-RoCE VM: the Ibex callback workloads on the rdma-core "
                    + "provider against rdma-core's C tools (ib_send_lat, ib_send_bw, ib_write_bw, cmtime) on one "
                    + "device, same boot; the table also as JSON (--json)."},
            footer = {"", "Device and address from IBEX_VM_DEV / IBEX_VM_ADDR (set by lab/rxe-vm).",
                    "Exit status: 0 every target met, 1 a target missed (or no data), 2 bad usage or not in the VM."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
                description = "interleaved rounds per workload (default ${DEFAULT-VALUE})")
        int rounds;

        @CommandLine.Option(names = "--quick", description = "a smoke run: fewer round trips, messages, connections")
        boolean quick;

        @CommandLine.Option(names = "--only", paramLabel = "WORKLOAD",
                description = "workloads, comma-separated: latency, c2, rate, write, setup, floor, steps, accept, curves "
                        + "(default: all but curves, the scaling curves by message size and connections: ~12 min more, ~8 with "
                        + "--quick)")
        String only;

        @CommandLine.Option(names = "--spin-nanos", paramLabel = "N", defaultValue = "0",
                description = "the Ibex side's ibex.rdma.poller.spinNanos (default ${DEFAULT-VALUE})")
        long spinNanos;

        @CommandLine.Option(names = "--profile", paramLabel = "DIR",
                description = "steps and accept: every child JVM records JFR (settings=profile, 1 ms samples) into DIR")
        Path profile;

        @CommandLine.Option(names = "--aot", description = "steps and accept: also train a JDK AOT cache for their child "
                + "JVM (-XX:AOTCacheOutput, into the --json file's directory) and measure a cold JVM started from it")
        boolean aot;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", defaultValue = "benchmarks/target/vm-bench/vm-bench.json",
                description = "the table as JSON (default ${DEFAULT-VALUE}: ./ibex bench --vm's results share)")
        Path json;

        @Override
        public Integer call() {
            if (rounds < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rounds must be at least 1");
            }
            if (only != null && !WORKLOADS.containsAll(List.of(only.split(",")))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--only " + only + ": one or more of "
                        + String.join(", ", WORKLOADS) + ", comma-separated");
            }
            String address = System.getenv("IBEX_VM_ADDR");
            if (address == null) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "IBEX_VM_ADDR is not set: run this inside lab/rxe-vm (./ibex bench --vm)");
            }
            return run(rounds, quick, only, spinNanos, address, json, profile,
                    aot ? json.toAbsolutePath().getParent() : null);
        }
    }

    static int run(int rounds, boolean quick, String only, long spinNanos, String address, Path json, Path profile,
            Path aot) {
        String device = System.getenv().getOrDefault("IBEX_VM_DEV", "rxe0");
        // --aot: two training JVMs (each a workload and the cache's assembly at exit) and a third child JVM per round
        Watchdog w = Watchdog.start(Duration.ofMinutes(aot == null ? 24 : 50));
        VmBench bench = new VmBench(System.out, w, device, address, rounds, quick,
                ProviderConfig.of(java.util.Map.of(RdmaCoreProvider.POLLER_SPIN_NANOS, Long.toString(spinNanos))), profile,
                aot);
        RatioTable table = new RatioTable("Ibex rdma-core provider vs rdma-core's C tools on " + device + " ("
                + address + ") in the Soft-RoCE VM, qemu TCG, " + RdmaCoreProvider.POLLER_SPIN_NANOS + "=" + spinNanos
                + " (" + HostLoad.describe() + " in the guest at start)",
                "C tool");
        if (only == null || List.of(only.split(",")).contains("latency")) {
            bench.guarded(table, "latency", bench::latency);
        }
        if (only == null || List.of(only.split(",")).contains("c2")) {
            bench.guarded(table, "c2", t -> new C2Latency(rounds, bench.roundTrips, address, System.out, w, bench.pairs,
                    bench::tool).run(t));
        }
        if (only == null || List.of(only.split(",")).contains("rate")) {
            bench.guarded(table, "rate", bench::messageRate);
        }
        if (only == null || List.of(only.split(",")).contains("write")) {
            bench.guarded(table, "write", bench::writeBandwidth);
        }
        if (only == null || List.of(only.split(",")).contains("setup")) {
            bench.guarded(table, "setup", bench::connectionSetup);
        }
        if (only == null || List.of(only.split(",")).contains("floor")) {
            bench.guarded(table, "floor", bench::floor);
        }
        if (only == null || List.of(only.split(",")).contains("steps")) {
            bench.guarded(table, "steps", bench.cmtime::steps);
        }
        if (only == null || List.of(only.split(",")).contains("accept")) {
            bench.guarded(table, "accept", bench.cmtime::accept);
        }
        if (only != null && List.of(only.split(",")).contains("curves")) { // not in the default set: minutes more
            bench.guarded(table, "curves", bench::curves);
        }
        if (bench.retries > 0) {
            table.note(bench.retries + " C tool run(s) failed or reported a zero figure and were repeated (output above)");
        }
        table.note(HostLoad.describe() + " in the guest at end; the host's load is what matters under TCG (see "
                + "./ibex bench --vm's first line)");
        table.print(System.out);
        try {
            table.writeJson(json);
            System.out.println("results: " + json);
            for (Path plot : table.writePlots(json.toAbsolutePath().getParent())) {
                System.out.println("plot: " + plot);
            }
        } catch (java.io.IOException e) {
            // outside ./ibex bench --vm the guest's root is read-only: the printed table stands, the verdict too
            System.out.println("results: not written (" + e + "); give --json a path on the results share");
        }
        return Cli.status(table.allMet());
    }

    /** Runs one workload; a failure becomes a NO DATA row (named {@code metric}) and a note, not an abort. */
    private void guarded(RatioTable table, String name, java.util.function.Consumer<RatioTable> workload) {
        try {
            workload.accept(table);
        } catch (RuntimeException e) {
            e.printStackTrace(out);
            table.add(new Comparison(name + " (failed)", Double.NaN, Double.NaN, Target.atLeast(1), "failed"));
            table.note(name + " FAILED: " + firstLine(e));
        }
    }

    private Sides sides(int port) {
        return Sides.oneFabric("rdma-core", config, new InetSocketAddress(address, port));
    }

    void latency(RatioTable table) {
        Rounds p50 = new Rounds("ping-pong 64 B one-way typical (us)", Target.atMost(1.1));
        Rounds p99 = new Rounds("  ping-pong 64 B one-way p99 (us)", Target.none());
        Rounds events = new Rounds("  typical vs ib_send_lat -e (CQ events)", Target.none());
        Rounds spinning = new Rounds("  loops busy-polling their CQs (cqPollSpin " + CQ_POLL_SPIN.toMillis()
                + " ms) vs ib_send_lat", Target.none());
        watchdog.phase("opening the ping-pong");
        try (PingPong ibex = PingPong.open(sides(7481), MESSAGE, OPEN_LIMIT);
                PingPong spin = PingPong.open(sides(7485).withCqPollSpin(CQ_POLL_SPIN), MESSAGE, OPEN_LIMIT)) {
            watchdog.phase("warming up the ping-pong");
            for (int i = 0; i < 3; i++) {
                ibex.run(roundTrips / 2, RUN_LIMIT); // JIT: C2 under TCG takes its time
                spin.run(roundTrips / 2, RUN_LIMIT);
            }
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("ping-pong round " + r);
                PerftestResult c = null;
                PerftestResult e = null;
                Histogram h = null;
                for (int k = 0; k < 3; k++) { // rotate: every side goes first, middle and last
                    switch ((k + r) % 3) {
                        case 0 -> c = tool("ib_send_lat", "-s", Integer.toString(MESSAGE), "-n",
                                Integer.toString(roundTrips));
                        case 1 -> e = tool("ib_send_lat", "-e", "-s", Integer.toString(MESSAGE), "-n",
                                Integer.toString(roundTrips));
                        default -> h = ibex.run(roundTrips, RUN_LIMIT);
                    }
                }
                Histogram hs = spin.run(roundTrips, RUN_LIMIT);
                spinning.add(c.get("t_typical"), hs.getValueAtPercentile(50) / 2e3);
                out.printf(Locale.ROOT, "latency round %d, loops spinning on their CQs: p50/2 %.1f p99/2 %.1f us%n", r,
                        hs.getValueAtPercentile(50) / 2e3, hs.getValueAtPercentile(99) / 2e3);
                double mine50 = h.getValueAtPercentile(50) / 2e3;
                double mine99 = h.getValueAtPercentile(99) / 2e3;
                p50.add(c.get("t_typical"), mine50);
                p99.add(c.get("99%"), mine99);
                events.add(e.get("t_typical"), mine50);
                out.printf(Locale.ROOT, "latency round %d: ib_send_lat typical %.1f p99 %.1f | ib_send_lat -e typical "
                        + "%.1f | Ibex p50/2 %.1f p99/2 %.1f us (%s)%n", r, c.get("t_typical"), c.get("99%"),
                        e.get("t_typical"), mine50, mine99, HostLoad.describe());
            }
        }
        table.add(p50.comparison()).add(p99.comparison()).add(events.comparison()).add(spinning.comparison());
        table.note("latency: " + roundTrips + " round trips per round; ib_send_lat -R -s 64 (busy-polling its CQ) vs "
                + "the callback PingPong (SEND echo, one loop per side, completions through the CQ's event channel);"
                + " Ibex figures are round trip / 2, perftest's convention; -e = perftest waiting for CQ events as "
                + "Ibex's loop does (epoll), the design's floor");
    }

    /** The scaling curves by message size and by connection count ({@link VmCurves}). */
    void curves(RatioTable table) {
        new VmCurves(quick ? VmCurves.Settings.QUICK : VmCurves.Settings.FULL, rounds, out, watchdog, this::sides,
                port -> Sides.twoFabrics("rdma-core", config, config, new InetSocketAddress(address, port)),
                this::tool).run(table);
    }

    /**
     * Where the latency gap comes from: {@code ib_send_lat} against the fewest calls a busy-polling RC ping-pong needs,
     * in C ({@code benchmarks/src/main/c/pingpong.c}, built here with gcc) and call for call in Java through the SPI
     * ({@link MinimalPingPong}: FFM, no loop, no endpoint), each a server and a client process as perftest runs.
     * C-minimal ÷ {@code ib_send_lat} is what perftest does better than the minimum; Java ÷ C is what the guest
     * charges a JVM for the same calls; the latency workload's Ibex ÷ this Java is what Ibex's layers add.
     */
    void floor(RatioTable table) {
        Rounds cVsTool = new Rounds("floor: minimal C ping-pong one-way typical (us)", Target.none());
        Rounds javaVsC = new Rounds("  minimal Java (SPI, FFM, no loop) vs minimal C (us)", Target.none());
        Rounds javaP99 = new Rounds("  minimal Java vs minimal C, p99 (us)", Target.none());
        Rounds poll = new Rounds("  one empty CQ poll, Java vs C (ns)", Target.none());
        Rounds cEvents = new Rounds("  minimal C, CQ events, vs ib_send_lat -e (us)", Target.none());
        Rounds javaEvents = new Rounds("  minimal Java vs minimal C, CQ events (us)", Target.none());
        watchdog.phase("building the minimal C ping-pong");
        Path c = PingPongProcesses.compileC();
        List<String> jvm = PingPongProcesses.javaCommand(PingPongProcesses.ownFlags(), MinimalPingPong.class);
        for (int r = 1; r <= rounds; r++) {
            watchdog.phase("floor round " + r);
            PerftestResult tool = tool("ib_send_lat", "-s", Integer.toString(MESSAGE), "-n", Integer.toString(roundTrips));
            PerftestResult toolEvents = tool("ib_send_lat", "-e", "-s", Integer.toString(MESSAGE), "-n",
                    Integer.toString(roundTrips));
            double[] cf = pairs.run(List.of(c.toString()), 7490 + 4 * r, roundTrips, MESSAGE, false);
            double[] jf = pairs.run(jvm, 7491 + 4 * r, roundTrips, MESSAGE, false);
            double[] ce = pairs.run(List.of(c.toString()), 7492 + 4 * r, roundTrips, MESSAGE, true);
            double[] je = pairs.run(jvm, 7493 + 4 * r, roundTrips, MESSAGE, true);
            cEvents.add(toolEvents.get("t_typical"), ce[0]);
            javaEvents.add(ce[0], je[0]);
            cVsTool.add(tool.get("t_typical"), cf[0]);
            javaVsC.add(cf[0], jf[0]);
            javaP99.add(cf[1], jf[1]);
            poll.add(cf[2], jf[2]);
            out.printf(Locale.ROOT, "floor round %d: ib_send_lat typical %.1f | minimal C typical %.1f p99 %.1f poll %.0f ns"
                    + " | minimal Java typical %.1f p99 %.1f poll %.0f ns%n", r, tool.get("t_typical"), cf[0], cf[1],
                    cf[2], jf[0], jf[1], jf[2]);
            out.printf(Locale.ROOT, "floor round %d, CQ events: ib_send_lat -e typical %.1f | minimal C typical %.1f "
                    + "| minimal Java typical %.1f%n", r, toolEvents.get("t_typical"), ce[0], je[0]);
        }
        table.add(cVsTool.comparison()).add(javaVsC.comparison()).add(javaP99.comparison()).add(poll.comparison())
                .add(cEvents.comparison()).add(javaEvents.comparison());
        table.note("floor: " + roundTrips + " round trips of " + MESSAGE + " B per run, busy-polling, server and client "
                + "processes; minimal Java = MinimalPingPong (its last of " + MinimalPingPong.ROUNDS + " rounds: JIT "
                + "warm-up), same JVM flags as this one; baseline column = ib_send_lat (-e for CQ events), then minimal "
                + "C; CQ events = block on the completion channel once the CQ is empty, ack, re-arm, poll again");
    }

    void messageRate(RatioTable table) {
        Rounds rate = new Rounds("SEND 64 B message rate (kmsg/s)", Target.atLeast(0.9));
        Rounds events = new Rounds("  rate vs ib_send_bw -e (CQ events)", Target.none());
        Rounds wall = new Rounds("  ib_send_bw wall-clock floor / perftest", Target.none());
        watchdog.phase("opening the SEND stream");
        try (Throughput ibex = Throughput.open(sides(7482), Throughput.Kind.SEND, MESSAGE, 128, 512, OPEN_LIMIT)) {
            watchdog.phase("warming up the SEND stream");
            for (int i = 0; i < 3; i++) {
                ibex.run(sends / 2, RUN_LIMIT);
            }
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("message rate round " + r);
                double c = Double.NaN;
                double e = Double.NaN;
                double mine = Double.NaN;
                for (int k = 0; k < 3; k++) {
                    switch ((k + r) % 3) {
                        case 0 -> {
                            c = sendRate();
                            wall.add(c, sends / (perftest.lastClientNanos() / 1e9) / 1e3);
                        }
                        case 1 -> e = sendRate("-e");
                        default -> mine = sends / (ibex.run(sends, RUN_LIMIT) / 1e9) / 1e3;
                    }
                }
                rate.add(c, mine);
                events.add(e, mine);
                out.printf(Locale.ROOT, "rate round %d: ib_send_bw %.1f | ib_send_bw -e %.1f | Ibex %.1f kmsg/s (%s)%n",
                        r, c, e, mine, HostLoad.describe());
            }
        }
        table.add(rate.comparison()).add(events.comparison()).add(wall.comparison());
        table.note("rate: " + sends + " SENDs of 64 B per round, send queue 128, receive window 512, on both sides; "
                + "perftest signals every 100th send (-Q 100 default), Ibex every send; wall-clock floor = SENDs / "
                + "the client process's wall time (start, connect and teardown included): a lower bound on the C tool's true rate, checking perftest's TSC-based figure");
    }

    /** {@code ib_send_bw}'s message rate in thousands per second, with the workload's depths. */
    private double sendRate(String... extra) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("-s", Integer.toString(MESSAGE),
                "-n", Integer.toString(sends), "-t", "128", "-r", "512"));
        args.addAll(java.util.List.of(extra));
        return tool("ib_send_bw", args.toArray(String[]::new)).get("MsgRate") * 1e3;
    }

    void writeBandwidth(RatioTable table) {
        Rounds bw = new Rounds("RDMA WRITE 64 KiB (MB/s)", Target.atLeast(0.95));
        Rounds wall = new Rounds("  ib_write_bw wall-clock floor / perftest", Target.none());
        watchdog.phase("opening the WRITE stream");
        try (Throughput ibex = Throughput.open(sides(7483), Throughput.Kind.WRITE, WRITE, 128, 16, OPEN_LIMIT)) {
            watchdog.phase("warming up the WRITE stream");
            for (int i = 0; i < 2; i++) {
                ibex.run(writes / 2, RUN_LIMIT);
            }
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("write round " + r);
                double c = Double.NaN;
                double mine = Double.NaN;
                for (int k = 0; k < 2; k++) {
                    if ((k + r) % 2 == 0) {
                        // MsgRate, not "BW average": perftest's MB is 2^20 B, ours 10^6
                        c = tool("ib_write_bw", "-s", Integer.toString(WRITE), "-n", Integer.toString(writes),
                                "-t", "128").get("MsgRate") * WRITE;
                        wall.add(c, (double) writes * WRITE / (perftest.lastClientNanos() / 1e3));
                    } else {
                        mine = (double) writes * WRITE / (ibex.run(writes, RUN_LIMIT) / 1e3);
                    }
                }
                bw.add(c, mine);
                out.printf(Locale.ROOT, "write round %d: ib_write_bw %.1f | Ibex %.1f MB/s (%s)%n", r, c, mine,
                        HostLoad.describe());
            }
        }
        table.add(bw.comparison()).add(wall.comparison());
        table.note("write: " + writes + " WRITEs of 64 KiB per round, send queue 128 on both; MB = 10^6 B (perftest's "
                + "MsgRate x 65536); wall-clock floor as for rate");
    }

    void connectionSetup(RatioTable table) {
        Rounds rate = new Rounds("connection setup rate (conn/s)", Target.atLeast(0.9));
        int port = 7484;
        watchdog.phase("starting the cmtime server");
        try (ToolRun server = perftest.cmtimeServer(port);
                ConnectionSetup ibex = ConnectionSetup.open(sides(port))) {
            watchdog.phase("warming up the connection setup");
            ibex.run(connections / 2, RUN_LIMIT);
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("connection setup round " + r);
                double c = Double.NaN;
                double mine = Double.NaN;
                double cMillis = Double.NaN;
                for (int k = 0; k < 2; k++) {
                    if ((k + r) % 2 == 0) {
                        cMillis = perftest.cmtime(port, connections).sum(CmtimeResult.SETUP);
                        c = connections / (cMillis / 1e3);
                    } else {
                        mine = connections / (ibex.run(connections, RUN_LIMIT) / 1e9);
                    }
                }
                rate.add(c, mine);
                out.printf(Locale.ROOT, "setup round %d: cmtime %.1f (%.1f ms) | Ibex %.1f conn/s (%s)%n", r, c,
                        cMillis, mine, HostLoad.describe());
            }
        }
        table.add(rate.comparison());
        table.note("setup: " + connections + " connections at once per round against one cmtime server; cmtime = "
                + "sum of its create id, resolve addr, resolve route, create qp and connect steps (each step for all "
                + "connections before the next), Ibex = first Connection.connect to last ESTABLISHED");
    }

    /**
     * One perftest run, repeated (at most twice) if it fails or reports no figure (the output goes to the log): a broken
     * baseline run must neither become a ratio nor end the workload.
     */
    private PerftestResult tool(String tool, String... args) {
        for (int attempt = 1;; attempt++) {
            try {
                return perftest.run(tool, args);
            } catch (IllegalStateException e) {
                if (attempt == 3) {
                    throw e;
                }
                out.println("repeating " + tool + " (attempt " + attempt + " failed): " + e.getMessage());
                retries++;
            }
        }
    }

    /** An exception's class and the first line of its message, for a note under the table. */
    static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return e.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    }
}
