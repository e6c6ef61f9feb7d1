package dev.ibex.bench.vm;

import dev.ibex.bench.perftest.PerftestResult;
import dev.ibex.bench.perftest.ToolRun;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code c2} workload: the latency workload's ping-pongs in a child JVM compiled by C2 alone
 * ({@code -XX:-TieredCompilation}), against {@code ib_send_lat} (busy-polling) and {@code ib_send_lat -e} (CQ events)
 * in the same rounds, with the minimal Java ping-pong ({@link MinimalPingPong}) in a C2 JVM beside them, both
 * busy-polling and in CQ-event mode, and the busy-polling Ibex ping-pong once more with its server and client in two
 * JVMs ({@link PingPongJvm} {@code server|client}), the way {@code ib_send_lat} and the minimal programs run: whether
 * sharing one JVM costs the pair anything.
 *
 * <p>Why: the VM bench's JVMs run C1 only ({@code -XX:TieredStopAtLevel=1}) because tiered C2 crashed under qemu TCG
 * when it made C1 code not entrant (docs/benchmarks.md). C2 alone has no C1 code to patch and ran every boot so far,
 * so this measures what a JVM as users run it (C2-compiled) does in the guest; the C1 rows stay for comparison.
 * C2 compiles a method after 10,000 invocations, hence the longer warm-up ({@value #WARMUP} round trips).
 */
final class C2Latency {
    /** Round trips before the measured run: past C2's 10,000-invocation threshold for the per-message path. */
    static final int WARMUP = 12_000;
    /** How long a C2-only child JVM running Ibex's ping-pong may take, its warm-up included. */
    static final java.time.Duration CHILD_LIMIT = java.time.Duration.ofMinutes(4);
    /** The minimal Java ping-pong's iterations per run (it reports the last of its runs). */
    static final int MINIMAL_ITERATIONS = 5_000;
    private static final Pattern FIGURES = Pattern.compile("spinning typical ([0-9.]+) us, p99 ([0-9.]+) us \\| "
            + "events typical ([0-9.]+) us, p99 ([0-9.]+) us");

    private final int rounds;
    private final int roundTrips;
    private final String address;
    private final PrintStream out;
    private final Watchdog watchdog;
    private final PingPongProcesses pairs;
    private final BiFunction<String, String[], PerftestResult> tool;

    /**
     * @param tool runs a perftest tool (name, arguments) and returns the client's result row
     */
    C2Latency(int rounds, int roundTrips, String address, PrintStream out, Watchdog watchdog, PingPongProcesses pairs,
            BiFunction<String, String[], PerftestResult> tool) {
        this.rounds = rounds;
        this.roundTrips = roundTrips;
        this.address = address;
        this.out = out;
        this.watchdog = watchdog;
        this.pairs = pairs;
        this.tool = tool;
    }

    /**
     * The flags of a C2-only child JVM: {@code parent}'s (the bench JVM's) without its JIT tier, JFR and AOT settings,
     * then {@code -XX:-TieredCompilation}.
     */
    static List<String> c2Flags(List<String> parent) {
        List<String> flags = new ArrayList<>();
        for (String a : parent) {
            if (AotCache.inherited(a) && !a.startsWith("-XX:TieredStopAtLevel") && !a.endsWith("TieredCompilation")) {
                flags.add(a);
            }
        }
        flags.add("-XX:-TieredCompilation");
        return flags;
    }

    /** Parses a {@link PingPongJvm} line: {@code {spinning typical, spinning p99, events typical, events p99}} (us). */
    static double[] parse(String output) {
        Matcher m = FIGURES.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("no figures from the ping-pong JVM: " + output);
        }
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4))};
    }

    void run(RatioTable table) {
        Rounds spin = new Rounds("ping-pong 64 B, C2 JVM, loops busy-polling, one-way typical (us)", Target.atMost(1.1));
        Rounds spinP99 = new Rounds("  C2 JVM, loops busy-polling, p99 (us)", Target.none());
        Rounds events = new Rounds("  C2 JVM, CQ events, vs ib_send_lat -e (us)", Target.atMost(1.1));
        Rounds minimal = new Rounds("  minimal Java in a C2 JVM vs ib_send_lat (us)", Target.none());
        Rounds minimalEvents = new Rounds("  minimal Java in a C2 JVM, CQ events, vs ib_send_lat -e (us)",
                Target.none());
        Rounds split = new Rounds("  C2, loops busy-polling, server and client in two JVMs, vs ib_send_lat (us)",
                Target.none());
        List<String> flags = c2Flags(PingPongProcesses.ownFlags());
        List<String> pingPong = PingPongProcesses.javaCommand(flags, PingPongJvm.class);
        List<String> minimalJava = PingPongProcesses.javaCommand(flags, MinimalPingPong.class);
        String n = Integer.toString(roundTrips);
        String size = Integer.toString(VmBench.MESSAGE);
        for (int r = 1; r <= rounds; r++) {
            watchdog.phase("c2 round " + r);
            try {
                PerftestResult c = null;
                PerftestResult e = null;
                double[] ibex = null;
                double[] mini = null;
                double[] miniEvents = null;
                double[] twoJvms = null;
                for (int k = 0; k < 6; k++) { // rotate: each goes first once in six rounds
                    switch ((k + r) % 6) {
                        case 0 -> c = tool.apply("ib_send_lat", new String[] {"-s", size, "-n", n});
                        case 1 -> e = tool.apply("ib_send_lat", new String[] {"-e", "-s", size, "-n", n});
                        case 2 -> ibex = pingPongJvm(pingPong, 7520 + 2 * r, n, size);
                        case 3 -> mini = pairs.run(minimalJava, 7530 + r, MINIMAL_ITERATIONS, VmBench.MESSAGE, false);
                        case 4 -> miniEvents = pairs.run(minimalJava, 7540 + r, MINIMAL_ITERATIONS, VmBench.MESSAGE,
                                true);
                        default -> twoJvms = pairs.run(pingPong, 7550 + r, roundTrips, VmBench.MESSAGE, false,
                                CHILD_LIMIT); // C2 alone interprets the first 10,000 calls of everything: slow
                    }
                }
                spin.add(c.get("t_typical"), ibex[0]);
                spinP99.add(c.get("99%"), ibex[1]);
                events.add(e.get("t_typical"), ibex[2]);
                minimal.add(c.get("t_typical"), mini[0]);
                minimalEvents.add(e.get("t_typical"), miniEvents[0]);
                split.add(c.get("t_typical"), twoJvms[0]);
                out.printf(Locale.ROOT, "c2 round %d: ib_send_lat typical %.1f p99 %.1f | ib_send_lat -e typical "
                        + "%.1f | Ibex C2 spinning %.1f p99 %.1f, events %.1f p99 %.1f, spinning in two JVMs %.1f | "
                        + "minimal Java C2 %.1f, events %.1f us%n", r, c.get("t_typical"), c.get("99%"), e.get("t_typical"), ibex[0],
                        ibex[1], ibex[2], ibex[3], twoJvms[0], mini[0], miniEvents[0]);
            } catch (RuntimeException x) { // one bad round (a run that failed to connect …) keeps the others
                x.printStackTrace(out);
                table.note("c2 round " + r + " failed, no figures from it: " + VmBench.firstLine(x));
            }
        }
        table.add(spin.comparison()).add(spinP99.comparison()).add(events.comparison()).add(minimal.comparison())
                .add(minimalEvents.comparison()).add(split.comparison());
        table.note("c2: the latency workload's ping-pongs (" + roundTrips + " round trips after " + WARMUP + " of "
                + "warm-up) in a child JVM with -XX:-TieredCompilation (C2 only; the bench's JVMs run C1 only), each "
                + "round beside ib_send_lat and -e; two JVMs = the busy-polling one with its server and client in "
                + "processes of their own (PingPongJvm server|client), as ib_send_lat's; minimal Java = "
                + "MinimalPingPong in a C2 JVM (" + MINIMAL_ITERATIONS + " iterations per run, its last run)");
    }

    private double[] pingPongJvm(List<String> command, int port, String n, String size) {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of(address, Integer.toString(port), Integer.toString(WARMUP), n, size));
        try (ToolRun child = ToolRun.start(cmd)) {
            return parse(child.await(CHILD_LIMIT));
        }
    }
}
