package dev.ibex.bench.soak;

import dev.ibex.bench.faults.Fault;
import dev.ibex.bench.faults.FaultMatrix;
import dev.ibex.bench.faults.Workload;
import dev.ibex.bench.fuzz.Escape;
import dev.ibex.bench.fuzz.PacketFuzz;
import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.Watchdog;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * The soak: the whole fault matrix over several seeds, the packet fuzzer over a million packets, and 10,000
 * connect/transfer/disconnect cycles with leak slopes — each part a workload of {@code ./ibex bench}
 * ({@code --only soak|matrix|fuzz|cycles}). Prints what each part found and writes the summary to
 * {@code docs/fault-matrix.md} (or {@code --report FILE}); exit status 0 when every cell passed, nothing escaped and
 * nothing leaked, 1 otherwise or when the harness itself failed, 2 on bad usage ({@link Cli}).
 *
 * <pre>
 * java -XX:NativeMemoryTracking=summary -cp benchmarks/target/benchmarks.jar dev.ibex.bench.soak.SoakBench
 *      [--only soak|matrix|fuzz|cycles] [--seeds 1,2,3] [--units N] [--packets N] [--cycles N] [--lanes N]
 *      [--report FILE | --no-report] [--help]
 * </pre>
 * {@code --only fuzz --seeds S --packets N} replays one fuzz seed.
 */
public final class SoakBench {
    private final PrintStream out;
    private final List<String> report = new ArrayList<>();
    private boolean passed = true;

    SoakBench(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The parts {@code --only} picks from. */
    static final List<String> PARTS = List.of("soak", "matrix", "fuzz", "cycles");

    /** The command line ({@code ./ibex bench --only soak|matrix|fuzz|cycles [options]}). */
    @CommandLine.Command(name = "ibex bench --only soak", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The fault soak on soft-roce: the fault matrix over seeds, the packet fuzzer, connection "
                    + "cycles with leak slopes; the whole soak writes docs/fault-matrix.md.",
            footer = {"", "--only fuzz --seeds S --packets N replays one fuzz seed.",
                    "Exit status: 0 every cell passed, nothing escaped, nothing leaked; 1 otherwise or the run "
                            + "failed; 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--only", paramLabel = "PART", defaultValue = "soak",
                description = "soak (every part, default), matrix, fuzz or cycles")
        String only;

        @CommandLine.Option(names = {"--seeds", "--seed"}, paramLabel = "S,...", split = ",",
                description = "seeds (default 1,2,3; the whole soak's fuzz: 1,2,3,4)")
        long[] seeds;

        @CommandLine.Option(names = "--units", paramLabel = "N", defaultValue = "1000",
                description = "units per matrix cell (default ${DEFAULT-VALUE})")
        int units;

        @CommandLine.Option(names = "--packets", paramLabel = "N", defaultValue = "1000000",
                description = "fuzzed packets in all (default ${DEFAULT-VALUE})")
        long packets;

        @CommandLine.Option(names = "--cycles", paramLabel = "N", defaultValue = "10000",
                description = "connection cycles (default ${DEFAULT-VALUE})")
        int cycles;

        @CommandLine.Option(names = "--lanes", paramLabel = "N", defaultValue = "4",
                description = "connection cycles at a time (default ${DEFAULT-VALUE})")
        int lanes;

        @CommandLine.Option(names = "--report", paramLabel = "FILE",
                description = "where the report goes (default: docs/fault-matrix.md for the whole soak; a part "
                        + "only prints)")
        Path report;

        @CommandLine.Option(names = "--no-report", description = "print the report only")
        boolean noReport;

        @Override
        public Integer call() throws IOException {
            if (!PARTS.contains(only)) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--only " + only + ": one of "
                        + String.join(", ", PARTS));
            }
            if (units < 1 || packets < 1 || cycles < 1 || lanes < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--units, --packets, --cycles and --lanes must be positive");
            }
            Path reportFile = report;
            if (report == null && !noReport && only.equals("soak")) {
                reportFile = Path.of("docs/fault-matrix.md"); // the whole soak is the document; a part only prints
            }
            boolean explicitSeeds = seeds != null;
            long[] chosen = explicitSeeds ? seeds : new long[] {1, 2, 3};
            Watchdog w = Watchdog.start(Duration.ofMinutes(90));
            SoakBench soak = new SoakBench(System.out);
            soak.header(only, spec.commandLine().getParseResult().originalArgs().toArray(String[]::new));
            if (only.equals("soak") || only.equals("matrix")) {
                w.phase("the fault matrix");
                soak.matrix(chosen, units);
            }
            if (only.equals("soak") || only.equals("fuzz")) {
                w.phase("the packet fuzz");
                // the soak spreads a million packets over four seeds unless told which
                soak.fuzz(explicitSeeds || !only.equals("soak") ? chosen : new long[] {1, 2, 3, 4}, packets);
            }
            if (only.equals("soak") || only.equals("cycles")) {
                w.phase("the connection cycles");
                soak.cycles(cycles, lanes);
            }
            soak.write(reportFile);
            System.out.println(soak.passed ? "SOAK PASSED" : "SOAK FAILED");
            return Cli.status(soak.passed);
        }
    }

    private void header(String only, String[] args) {
        report.add("# Fault matrix, packet fuzz and connection soak (soft-roce)");
        report.add("");
        report.add("Written by the soak benchmark (`benchmarks`, `dev.ibex.bench.soak.SoakBench`); what each part does is "
                + "in docs/reliability.md and docs/benchmarks.md.");
        report.add("");
        List<String> shown = new ArrayList<>(List.of(args)); // where the report goes is not part of the run
        int at = shown.indexOf("--report");
        if (at >= 0 && at + 1 < shown.size()) {
            shown.subList(at, at + 2).clear();
        }
        shown.remove("--no-report");
        report.add("- Command: `./ibex bench " + (shown.isEmpty() ? "--only " + only : String.join(" ", shown)) + "`");
        report.add("- Date: " + LocalDate.now() + "; " + HostLoad.describe() + " at start; JDK " + Runtime.version());
        report.add("");
    }

    // ---- the matrix -----------------------------------------------------------------------------------------

    void matrix(long[] seeds, int units) {
        Map<String, List<FaultMatrix.Cell>> byCell = new LinkedHashMap<>();
        FaultMatrix.Plan plan = null;
        for (long seed : seeds) {
            plan = FaultMatrix.Plan.full(seed, units);
            out.println("fault matrix, seed " + seed + ", " + units + " units per cell");
            for (FaultMatrix.Cell c : FaultMatrix.run(plan, out)) {
                byCell.computeIfAbsent(c.workload() + "/" + c.fault(), k -> new ArrayList<>()).add(c);
            }
        }
        report.add("## Fault matrix");
        report.add("");
        report.add(String.format(Locale.ROOT, "Every workload with traffic in flight × every fault, on a fresh pair of "
                + "soft-roce hosts per cell (the server in a JVM of its own for kill -9); seeds %s, %d units per cell "
                + "(messages, operations or datagrams); timer scale %.2f, local ACK timeout %d, retry count %d: the "
                + "transport gives up after %.2f s; keepalive every %.1f s, %d probes. A cell passes when it shows its expected outcome, nothing arrived "
                + "corrupt, no exception escaped and the client closed with its one terminal callback. (`FaultMatrix`, "
                + "`Expectation.of`; a slice runs in `mvn verify`: `FaultMatrixTest`.)", Arrays.toString(seeds), units,
                plan.timerScale(), plan.localAckTimeout(), plan.retryCount(), plan.retryBound().toMillis() / 1000.0,
                plan.keepaliveInterval().toMillis() / 1000.0, plan.keepaliveCount()));
        report.add("");
        StringBuilder head = new StringBuilder("| workload \\ fault |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Fault f : Fault.values()) {
            head.append(' ').append(f.title()).append(" |");
            rule.append("---|");
        }
        report.add(head.toString());
        report.add(rule.toString());
        int cells = 0;
        int cellsPassed = 0;
        for (Workload w : Workload.values()) {
            StringBuilder row = new StringBuilder("| " + w.title() + " |");
            for (Fault f : Fault.values()) {
                List<FaultMatrix.Cell> runs = byCell.getOrDefault(w + "/" + f, List.of());
                long ok = runs.stream().filter(FaultMatrix.Cell::pass).count();
                cells++;
                if (ok == runs.size() && !runs.isEmpty()) {
                    cellsPassed++;
                } else {
                    passed = false;
                }
                row.append(' ').append(ok == runs.size() ? "✓ " : "✗ ").append(ok).append('/').append(runs.size())
                        .append(" |");
            }
            report.add(row.toString());
        }
        report.add("");
        report.add(cellsPassed + " of " + cells + " cells passed under every seed.");
        report.add("");
        report.add("What each cell had to show, and what it showed (the last seed; every failure of any seed below):");
        report.add("");
        report.add("| workload | fault | expected | measured | counts |");
        report.add("|---|---|---|---|---|");
        for (List<FaultMatrix.Cell> runs : byCell.values()) {
            FaultMatrix.Cell c = runs.getLast();
            report.add("| " + c.workload().title() + " | " + c.fault().title() + " | " + c.expected().describe()
                    + " | " + c.measured() + " | " + c.detail().replace("|", "/") + " |");
        }
        List<String> failures = byCell.values().stream().flatMap(List::stream).filter(c -> !c.pass())
                .map(c -> "- " + c.workload().title() + " × " + c.fault().title() + ": " + c.measured() + " ("
                        + c.detail() + ")").toList();
        report.add("");
        report.add(failures.isEmpty() ? "No cell failed under any seed." : "Failures:");
        report.addAll(failures);
        report.add("");
        report.add("Why each expectation holds:");
        report.add("");
        for (Workload w : List.of(Workload.RC_SEND, Workload.UD)) {
            for (Fault f : Fault.values()) {
                var e = dev.ibex.bench.faults.Expectation.of(w, f, plan.deadPeerBound(), plan.cmBound());
                report.add("- " + (w.datagram() ? "UD, multicast" : "RC (send/recv, WRITE, READ, atomics)") + " × "
                        + f.title() + ": " + e.describe() + " — " + e.why());
            }
        }
        report.add("");
    }

    // ---- the fuzzer -----------------------------------------------------------------------------------------

    void fuzz(long[] seeds, long packets) {
        long each = Math.max(1, packets / seeds.length);
        report.add("## Packet fuzz");
        report.add("");
        report.add(String.format(Locale.ROOT, "Malformed and forged packets against a live target connection and a "
                + "bystander next to it, both carrying sequenced echo streams (`PacketFuzz`); %,d packets per seed. An "
                + "escape is an exception (uncaught or caught and logged), wrong data, a stall, harm to a connection "
                + "the packet was not addressed to or not from its path, an untyped end, or a drop that was not "
                + "counted. Replay a seed with `./ibex bench --only fuzz --seeds S --packets N`.", each));
        report.add("");
        report.add("| seed | packets | off path arrived | device drops (malformed / unknown QP / off path / wrong "
                + "transport) | CM off-path drops | invalid responses | target ended (by reason, each reconnected) | "
                + "echoes | escapes | seconds |");
        report.add("|---|---|---|---|---|---|---|---|---|---|");
        long total = 0;
        long escapes = 0;
        List<String> found = new ArrayList<>();
        for (long seed : seeds) {
            out.println("packet fuzz, seed " + seed + ", " + each + " packets");
            PacketFuzz.Result r = PacketFuzz.run(PacketFuzz.Plan.of(seed, each), out);
            out.println(r.summary());
            total += r.packets();
            escapes += r.escapes().size();
            r.escapes().stream().limit(20).map(Escape::toString).forEach(found::add);
            var d = r.drops();
            report.add(String.format(Locale.ROOT, "| %d | %,d | %,d | %,d / %,d / %,d / %,d | %,d | %,d | %s | %,d | %d "
                    + "| %.0f |", seed, r.packets(), r.offPathArrived(), d.malformed(), d.unknownQp(), d.offPath(),
                    d.wrongTransport(), r.cmOffPath(), r.invalidResponses(), r.targetEnds(), r.echoes(),
                    r.escapes().size(), r.seconds()));
        }
        if (escapes > 0) {
            passed = false;
        }
        report.add("");
        report.add(String.format(Locale.ROOT, "%,d packets over %d seeds, %d escape(s).", total, seeds.length,
                escapes));
        found.forEach(f -> report.add("- " + f));
        report.add("");
    }

    // ---- the cycles -----------------------------------------------------------------------------------------

    void cycles(int cycles, int lanes) {
        out.println("connection cycles: " + cycles + ", " + lanes + " at a time");
        ConnectionCycles.Result r = ConnectionCycles.run(cycles, lanes, Math.max(1, cycles / 40), out);
        if (!r.passed()) {
            passed = false;
        }
        Sample first = r.samples().getFirst();
        Sample last = r.samples().getLast();
        String nmt = first.nmtCommittedKb() < 0 ? " NMT was off (run with -XX:NativeMemoryTracking=summary; "
                + "`./ibex bench` does)." : "";
        report.add("## Connection soak");
        report.add("");
        report.add(String.format(Locale.ROOT, "%,d connect / transfer (16 echoed messages) / disconnect cycles, %d at "
                + "a time, every fourth closed by the server, in %.0f s (`ConnectionCycles`); sampled every %,d "
                + "cycles with every connection closed. Slope: growth of the metric's floor per 1,000 cycles after "
                + "the first fifth; a leak of one of anything per cycle reads about 1,000.%s", cycles, lanes,
                r.seconds(), Math.max(1, cycles / 40), nmt));
        report.add("");
        report.add("| metric | at start | at the end | slope per 1,000 cycles | leak above |");
        report.add("|---|---|---|---|---|");
        for (Sample.Metric m : Sample.Metric.values()) {
            report.add(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.1f | %s |", m.title(), first.value(m),
                    last.value(m), r.slopes().get(m), m.noise() > 0 ? String.format(Locale.ROOT, "%.1f", m.noise())
                    : "(information)"));
        }
        report.add("");
        report.add(r.passed() ? "No leak, no failed cycle." : "Leaks: " + r.leaks() + "; failed cycles: "
                + r.failures().size() + " " + r.failures().stream().limit(5).toList());
        report.add("");
        out.println("cycles: slopes " + r.slopes() + (r.passed() ? "; no leak" : "; " + r.leaks() + " "
                + r.failures()));
    }

    private void write(Path file) throws IOException {
        String text = String.join("\n", report) + "\n";
        out.println();
        out.println(text);
        if (file != null && (file.getParent() == null || Files.isDirectory(file.getParent()))) {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            out.println("(written to " + file + ")");
        }
    }
}
