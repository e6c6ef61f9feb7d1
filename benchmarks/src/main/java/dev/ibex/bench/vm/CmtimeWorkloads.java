package dev.ibex.bench.vm;

import dev.ibex.bench.perftest.CmtimeResult;
import dev.ibex.bench.perftest.Perftest;
import dev.ibex.bench.perftest.ToolRun;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@link VmBench}'s two workloads around rdma-core's {@code cmtime}, the C client and server against the Java port
 * ({@code samples}' {@code Cmtime}) run in child JVMs: {@code steps} (each cmtime step, C client vs Java client) and
 * {@code accept} (the C client's connect step against the Java server vs against the C server), each with its
 * {@code --aot} rows ({@link AotCache}). They live apart from {@code VmBench} because only they start child JVMs:
 * training, cache checks and the child's command line belong together.
 */
final class CmtimeWorkloads {
    /** Runs of the Java cmtime client per child JVM: the first is the cold figure, the last the warm one. */
    static final int STEP_RUNS = 6;
    /** Connections the accept workload's C client makes per run. */
    static final int ACCEPTS = 200;
    /**
     * The burst of {@value #ACCEPTS} whose connect step is the warm accept figure. Not the second: C1 compiles a method
     * after ~200 invocations (each connection makes a handful of each), and under TCG its compiles take seconds, so
     * a second burst may still run partly interpreted: the info row of the second burst shows the difference.
     */
    static final int WARM_BURST = 5;
    /** The loops of the accept workload's spreading server (cmtime's {@code --loops}). */
    static final int SPREAD_LOOPS = 2;
    private static final String CMTIME = "dev.ibex.samples.cmtime.Cmtime";
    /** How long a training JVM may take, its exit included (the cache is assembled then: minutes under TCG). */
    static final Duration TRAINING_LIMIT = Duration.ofMinutes(12);

    private final PrintStream out;
    private final Watchdog watchdog;
    private final Perftest perftest;
    private final String address;
    private final int rounds;
    private final int stepConnections;
    /** Where child JVMs write a JFR recording each ({@code null}: none). */
    private final Path profile;
    /** Where {@code --aot} trains its AOT caches ({@code null}: no AOT rows). */
    private final Path aot;

    CmtimeWorkloads(PrintStream out, Watchdog watchdog, Perftest perftest, String address, int rounds,
            int stepConnections, Path profile, Path aot) {
        this.out = out;
        this.watchdog = watchdog;
        this.perftest = perftest;
        this.address = address;
        this.rounds = rounds;
        this.stepConnections = stepConnections;
        this.profile = profile;
        this.aot = aot;
    }
    /**
     * Each cmtime step, C against the Java port (step by step through the SPI, {@code samples}' {@code Cmtime}): per
     * round the C client, then a fresh child JVM running the Java client {@value #STEP_RUNS} times (order alternating),
     * both against one C server. Cold = the child's first run (class loading, method-handle linking, the JIT), warm =
     * its last. Beside them (issue 18) {@link MinimalCmtime}'s client in a child JVM made alike, its last run the
     * minimal Java warm figure: minimal Java ÷ C is what the guest costs a JVM making cmtime's calls, the port ÷
     * minimal Java what Ibex costs.
     */
    void steps(RatioTable table) {
        int port = 7486;
        java.util.Map<String, Rounds> warm = new java.util.LinkedHashMap<>();
        java.util.Map<String, Rounds> cold = new java.util.LinkedHashMap<>();
        java.util.Map<String, Rounds> cached = new java.util.LinkedHashMap<>();
        java.util.Map<String, Rounds> minimal = new java.util.LinkedHashMap<>();
        java.util.Map<String, Rounds> overMinimal = new java.util.LinkedHashMap<>();
        Rounds gain = new Rounds("  all steps, cold JVM + AOT cache vs cold JVM (ms)", Target.none());
        for (String step : CmtimeResult.STEPS) {
            warm.put(step, new Rounds("cmtime " + step + ", warm JVM (ms)", Target.atMost(1.11)));
            cold.put(step, new Rounds("  " + step + ", cold JVM (ms)", Target.none()));
            cached.put(step, new Rounds("  " + step + ", cold JVM + AOT cache (ms)", Target.none()));
            minimal.put(step, new Rounds("  " + step + ", minimal Java warm (ms)", Target.none()));
            overMinimal.put(step, new Rounds("  " + step + ", Ibex warm vs minimal Java warm (ms)", Target.none()));
        }
        List<String> client = List.of("-s", address, "-p", Integer.toString(port), "-c",
                Integer.toString(stepConnections));
        List<String> repeated = new java.util.ArrayList<>(client);
        repeated.addAll(List.of("--repeat", Integer.toString(STEP_RUNS)));
        watchdog.phase("starting the cmtime server for the steps");
        try (ToolRun server = perftest.cmtimeServer(port)) {
            Path cache = aot == null ? null : trainSteps(table, repeated);
            int sides = cache == null ? 3 : 4;
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("cmtime steps round " + r);
                try {
                    CmtimeResult c = null;
                    List<CmtimeResult> java = null;
                    List<CmtimeResult> mini = null;
                    CmtimeResult fromCache = null;
                    for (int k = 0; k < sides; k++) {
                        switch ((k + r) % sides) {
                            case 0 -> c = perftest.cmtime(port, stepConnections);
                            case 1 -> java = javaCmtime("steps-" + r, CMTIME, repeated);
                            case 2 -> mini = javaCmtime("steps-minimal-" + r, MinimalCmtime.class.getName(), repeated);
                            // the cold run only: the first run of a JVM does not depend on the runs after it
                            default -> fromCache = cachedCmtime(table, "steps-aot-" + r, cache, client);
                        }
                    }
                    // every figure first (a missing row throws here), then the round goes into all rows at once
                    CmtimeResult first = java.getFirst();
                    CmtimeResult last = java.getLast();
                    CmtimeResult miniWarm = mini.getLast();
                    for (String step : CmtimeResult.STEPS) {
                        c.sum(step);
                        first.sum(step);
                        last.sum(step);
                        miniWarm.sum(step);
                        if (fromCache != null) {
                            fromCache.sum(step);
                        }
                    }
                    StringBuilder line = new StringBuilder("steps round " + r + " (ms, C / Java cold"
                            + (fromCache == null ? "" : " / Java cold + AOT cache") + " / Java warm / minimal Java warm):");
                    for (String step : CmtimeResult.STEPS) {
                        double cm = c.sum(step);
                        warm.get(step).add(cm, last.sum(step));
                        cold.get(step).add(cm, first.sum(step));
                        minimal.get(step).add(cm, miniWarm.sum(step));
                        overMinimal.get(step).add(miniWarm.sum(step), last.sum(step));
                        if (fromCache != null) {
                            cached.get(step).add(cm, fromCache.sum(step));
                            line.append(String.format(Locale.ROOT, " %s %.1f/%.1f/%.1f/%.1f/%.1f;", step, cm,
                                    first.sum(step), fromCache.sum(step), last.sum(step), miniWarm.sum(step)));
                        } else {
                            line.append(String.format(Locale.ROOT, " %s %.1f/%.1f/%.1f/%.1f;", step, cm,
                                    first.sum(step), last.sum(step), miniWarm.sum(step)));
                        }
                    }
                    if (fromCache != null) {
                        gain.add(first.sum(CmtimeResult.STEPS), fromCache.sum(CmtimeResult.STEPS));
                    }
                    out.println(line + " (" + HostLoad.describe() + ")");
                } catch (RuntimeException e) { // one bad round (a C tool's odd output …) keeps the others
                    e.printStackTrace(out);
                    table.note("steps round " + r + " failed, no figures from it: " + VmBench.firstLine(e));
                }
            }
        }
        for (String step : CmtimeResult.STEPS) {
            table.add(warm.get(step).comparison()).add(cold.get(step).comparison());
            if (aot != null) {
                table.add(cached.get(step).comparison());
            }
            table.add(minimal.get(step).comparison()).add(overMinimal.get(step).comparison());
        }
        if (aot != null) {
            table.add(gain.comparison());
        }
        table.note("steps: " + stepConnections + " connections per run, each step for all before the next, C cmtime "
                + "client vs the Java port (samples' Cmtime, the SPI on one event loop) in a child JVM with this JVM's "
                + "flags, both against one C cmtime server; warm = the child's run " + STEP_RUNS + " of " + STEP_RUNS
                + ", cold = its run 1; a time ratio <= 1.11 is >= 0.9x cmtime's per-connection rate; minimal Java = "
                + "MinimalCmtime (cmtime.c's calls through the SPI on the calling thread: no event loop, no cm-core) in "
                + "a child JVM with the same flags and --repeat " + STEP_RUNS + ", warm = its last run; its row's "
                + "baseline is C, the 'Ibex warm vs minimal Java warm' row's baseline is the minimal Java (info: how much "
                + "of the Java port's time is Ibex rather than a JVM making cmtime's calls in this guest)"
                + (aot == null ? "" : "; cold + AOT cache = run 1 of another child JVM started with -XX:AOTCache, "
                        + "the cache trained by one child JVM doing the same " + STEP_RUNS + " runs before round 1"));
    }

    /**
     * Trains the steps' AOT cache: a child JVM runs the Java client as the measured one does, with
     * {@code -XX:AOTCacheOutput}; {@code null} (and a note) when it failed or wrote no cache.
     */
    private Path trainSteps(RatioTable table, List<String> args) {
        Path cache = aot.resolve("ibex-cmtime-steps.aot");
        watchdog.phase("training the AOT cache for the steps");
        long start = System.nanoTime();
        try {
            java.nio.file.Files.deleteIfExists(cache);
            try (ToolRun t = ToolRun.start(javaCommand("steps-train", AotCache.trainingFlags(cache), args))) {
                String output = t.await(TRAINING_LIMIT);
                return trained(table, "steps", cache, output, start);
            }
        } catch (RuntimeException | java.io.IOException e) {
            table.note("steps: no AOT cache (" + VmBench.firstLine(e) + "); the cold + AOT cache rows have no data");
            return null;
        }
    }

    /** Checks a training JVM's cache and prints how long it took; a copy to use, or {@code null} and a note. */
    private Path trained(RatioTable table, String workload, Path cache, String output, long start) {
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        if (!AotCache.written(cache)) {
            out.println(workload + ": the training JVM wrote no AOT cache:\n" + output);
            table.note(workload + ": the training JVM wrote no AOT cache " + cache + "; the cold + AOT cache rows have "
                    + "no data");
            return null;
        }
        try {
            out.printf(Locale.ROOT, "%s: AOT cache %s trained in %d s (workload and assembly), %.1f MB%n", workload,
                    cache, seconds, java.nio.file.Files.size(cache) / 1e6);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return AotCache.localCopy(cache);
    }

    /**
     * Runs the Java client in a child JVM started from {@code cache}; its first table, or {@code null} (and a note)
     * when the JVM says it could not use the cache.
     */
    private CmtimeResult cachedCmtime(RatioTable table, String name, Path cache, List<String> args) {
        try (ToolRun java = ToolRun.start(javaCommand(name, AotCache.useFlags(cache), args))) {
            String output = java.await(Duration.ofMinutes(5));
            String problem = AotCache.problem(output);
            if (problem != null) {
                table.note(name + ": the JVM did not use its AOT cache (" + problem + "): no figure this round");
                return null;
            }
            return CmtimeResult.parseAll(output).getFirst();
        }
    }

    /**
     * Accepting {@value #ACCEPTS} connections: the C {@code cmtime} client's connect step against the C server and
     * against the Java port's server (a fresh child JVM per round: its first {@value #ACCEPTS} are the cold figure, its
     * {@value #WARM_BURST}th the warm one, its second an info row), and against {@link MinimalCmtime}'s server (a
     * child JVM per round, its {@value #WARM_BURST}th burst: an info row).
     */
    void accept(RatioTable table) {
        Rounds warm = new Rounds("accept " + ACCEPTS + ": C client's connect step vs Java server, warm (ms)",
                Target.atMost(1.5));
        Rounds cold = new Rounds("  accept " + ACCEPTS + ", Java server's first " + ACCEPTS + " (cold JVM, ms)",
                Target.none());
        Rounds cached = new Rounds("  accept " + ACCEPTS + ", Java server's first " + ACCEPTS
                + " (cold JVM + AOT cache, ms)", Target.none());
        Rounds whole = new Rounds("  accept " + ACCEPTS + ", all client steps, warm (ms)", Target.none());
        Rounds secondBurst = new Rounds("  accept " + ACCEPTS + ", Java server's second " + ACCEPTS + " (ms)",
                Target.none());
        Rounds spread = new Rounds("  accept " + ACCEPTS + ", Java server on " + SPREAD_LOOPS + " loops, children spread "
                + "(rdma_migrate_id), warm (ms)", Target.none());
        Rounds minimal = new Rounds("  accept " + ACCEPTS + ", minimal Java server, warm (ms)", Target.none());
        int cPort = 7487;
        watchdog.phase("starting the cmtime server for the accepts");
        try (ToolRun cServer = perftest.cmtimeServer(cPort)) {
            Path cache = aot == null ? null : trainAccept(table, 7487 + rounds + 1);
            int sides = cache == null ? 4 : 5;
            for (int r = 1; r <= rounds; r++) {
                watchdog.phase("accept round " + r);
                try {
                    int jPort = 7487 + r;
                    int aotPort = 7487 + rounds + 1 + r;
                    int spreadPort = 7487 + 2 * (rounds + 1) + r;
                    int minimalPort = 7560 + r; // clear of the others' ports (floor's, c2's)
                    CmtimeResult c = null;
                    CmtimeResult first = null;
                    CmtimeResult second = null;
                    CmtimeResult warmest = null;
                    CmtimeResult fromCache = null;
                    CmtimeResult spreadWarm = null;
                    CmtimeResult minimalWarm = null;
                    for (int k = 0; k < sides; k++) {
                        switch ((k + r) % sides) {
                            case 0 -> c = perftest.cmtime(cPort, ACCEPTS);
                            case 1 -> {
                                try (ToolRun jServer = Perftest.server(javaCommand("accept-" + r, List.of(),
                                        serverArgs(jPort)), jPort)) {
                                    first = perftest.cmtime(jPort, ACCEPTS);
                                    second = perftest.cmtime(jPort, ACCEPTS);
                                    warmest = warmUp(jPort, 2);
                                }
                            }
                            case 2 -> {
                                List<String> args = new java.util.ArrayList<>(serverArgs(spreadPort));
                                args.addAll(List.of("--loops", Integer.toString(SPREAD_LOOPS)));
                                try (ToolRun jServer = Perftest.server(javaCommand("accept-spread-" + r, List.of(),
                                        args), spreadPort)) {
                                    spreadWarm = warmUp(spreadPort, 0); // cold: the plain server's row has it
                                }
                            }
                            case 3 -> {
                                try (ToolRun jServer = Perftest.server(javaCommand("accept-minimal-" + r, List.of(),
                                        MinimalCmtime.class.getName(), serverArgs(minimalPort)), minimalPort)) {
                                    minimalWarm = warmUp(minimalPort, 0);
                                }
                            }
                            default -> {
                                String name = "accept-aot-" + r;
                                try (ToolRun jServer = Perftest.server(javaCommand(name, AotCache.useFlags(cache),
                                        serverArgs(aotPort)), aotPort)) {
                                    CmtimeResult f = perftest.cmtime(aotPort, ACCEPTS);
                                    String problem = AotCache.problem(jServer.output());
                                    if (problem == null) {
                                        fromCache = f;
                                    } else {
                                        table.note(name + ": the JVM did not use its AOT cache (" + problem
                                                + "): no figure this round");
                                    }
                                }
                            }
                        }
                    }
                    // every figure first (a missing row throws here), then the round goes into all rows at once
                    double cConnect = c.sum("connect");
                    double cAll = c.sum(CmtimeResult.STEPS);
                    double coldConnect = first.sum("connect");
                    double secondConnect = second.sum("connect");
                    double warmConnect = warmest.sum("connect");
                    double warmAll = warmest.sum(CmtimeResult.STEPS);
                    double cachedConnect = fromCache == null ? Double.NaN : fromCache.sum("connect");
                    double spreadConnect = spreadWarm.sum("connect");
                    double minimalConnect = minimalWarm.sum("connect");
                    warm.add(cConnect, warmConnect);
                    cold.add(cConnect, coldConnect);
                    secondBurst.add(cConnect, secondConnect);
                    whole.add(cAll, warmAll);
                    spread.add(cConnect, spreadConnect);
                    minimal.add(cConnect, minimalConnect);
                    if (fromCache != null) {
                        cached.add(cConnect, cachedConnect);
                    }
                    out.printf(Locale.ROOT, "accept round %d: connect step vs C server %.1f | vs Java server cold %.1f, %s"
                            + "second %.1f, warm %.1f ms | on %d loops, spread, warm %.1f ms | minimal Java server, warm "
                            + "%.1f ms (%s)%n", r, c.sum("connect"), first.sum("connect"), fromCache == null ? ""
                            : String.format(Locale.ROOT, "cold + AOT cache %.1f, ", fromCache.sum("connect")),
                            secondConnect, warmConnect, SPREAD_LOOPS, spreadConnect, minimalConnect,
                            HostLoad.describe());
                } catch (RuntimeException e) { // one bad round (a C tool's odd output …) keeps the others
                    e.printStackTrace(out);
                    table.note("accept round " + r + " failed, no figures from it: " + VmBench.firstLine(e));
                }
            }
        }
        table.add(warm.comparison()).add(cold.comparison()).add(secondBurst.comparison());
        if (aot != null) {
            table.add(cached.comparison());
        }
        table.add(whole.comparison()).add(spread.comparison()).add(minimal.comparison());
        table.note("accept: C cmtime -c " + ACCEPTS + " against the C cmtime server and against the Java port's "
                + "server (cm-core Listener, children on the listener's loop, no rdma_migrate_id; the spread row: "
                + SPREAD_LOOPS + " loops, every other child moved to the second with rdma_migrate_id) in a child JVM with "
                + "this JVM's flags; figure = the client's connect step (all " + ACCEPTS + " ESTABLISHED); warm = "
                + "the server JVM's burst " + WARM_BURST + " of " + ACCEPTS + ", cold its first"
                + (aot == null ? "" : "; cold + AOT cache = the first " + ACCEPTS + " of another server JVM started "
                        + "with -XX:AOTCache, the cache trained by a server JVM taking 2 x " + ACCEPTS
                        + " before round 1")
                + "; minimal Java server = MinimalCmtime's server (cmtime.c's server calls through the SPI on the "
                + "thread that polls the event channel: a QP and rdma_accept per request, no event loop, no cm-core) "
                + "in a child JVM with the same flags, its burst " + WARM_BURST + " of " + ACCEPTS + " (info: the "
                + "guest's cost to a JVM accepting as C does)");
    }

    /**
     * Runs the C client against a Java server that has taken {@code done} bursts already until it takes its
     * {@value #WARM_BURST}th, and returns that one.
     */
    private CmtimeResult warmUp(int port, int done) {
        CmtimeResult last = null;
        for (int burst = done + 1; burst <= WARM_BURST; burst++) {
            last = perftest.cmtime(port, ACCEPTS);
        }
        return last;
    }

    private List<String> serverArgs(int port) {
        return List.of("-b", address, "-p", Integer.toString(port));
    }

    /**
     * Trains the accept workload's AOT cache: a server JVM with {@code -XX:AOTCacheOutput} takes two bursts of
     * {@value #ACCEPTS} from the C client, as the measured one does, then is stopped (SIGTERM: it writes the cache as
     * it exits); {@code null} (and a note) when that failed.
     */
    private Path trainAccept(RatioTable table, int port) {
        Path cache = aot.resolve("ibex-cmtime-accept.aot");
        watchdog.phase("training the AOT cache for the accepts");
        long start = System.nanoTime();
        try {
            java.nio.file.Files.deleteIfExists(cache);
            try (ToolRun t = Perftest.server(javaCommand("accept-train", AotCache.trainingFlags(cache),
                    serverArgs(port)), port)) {
                perftest.cmtime(port, ACCEPTS);
                perftest.cmtime(port, ACCEPTS);
                String output = t.stop(TRAINING_LIMIT);
                return trained(table, "accept", cache, output, start);
            }
        } catch (RuntimeException | java.io.IOException e) {
            table.note("accept: no AOT cache (" + VmBench.firstLine(e) + "); the cold + AOT cache row has no data");
            return null;
        }
    }

    /**
     * Runs a Java cmtime client in a child JVM with this JVM's flags and returns its tables, in order.
     *
     * @param main the port's class ({@code samples}' {@code Cmtime}) or {@link MinimalCmtime}'s
     */
    private List<CmtimeResult> javaCmtime(String name, String main, List<String> args) {
        try (ToolRun java = ToolRun.start(javaCommand(name, List.of(), main, args))) {
            return CmtimeResult.parseAll(java.await(Duration.ofMinutes(5)));
        }
    }

    /**
     * A child JVM with this JVM's flags and {@code jvmFlags} running the cmtime port with {@code args} on the
     * rdma-core provider.
     */
    private List<String> javaCommand(String name, List<String> jvmFlags, List<String> args) {
        return javaCommand(name, jvmFlags, CMTIME, args);
    }

    /** As {@link #javaCommand(String, List, List)}, running {@code main} ({@link MinimalCmtime}'s name or the port's). */
    private List<String> javaCommand(String name, List<String> jvmFlags, String main, List<String> args) {
        return childCommand(ProcessHandle.current().info().command().orElse("java"),
                java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments(), jvmFlags, profile, name,
                System.getProperty("java.class.path"), main, args);
    }

    /**
     * The command line of a child JVM running the cmtime port on the rdma-core provider: {@code java}, the flags
     * {@code parent} (the bench JVM's) passes on ({@link AotCache#inherited}: all but its JFR recording and its own
     * AOT settings), {@code jvmFlags}, a JFR recording into {@code profile} named after {@code name} (if
     * {@code profile} is set), the class path, the port and {@code args}. A training and a measured child made from
     * the same inputs differ only in {@code jvmFlags} (and the JFR file), as the AOT cache needs.
     */
    static List<String> childCommand(String java, List<String> parent, List<String> jvmFlags, Path profile,
            String name, String classPath, List<String> args) {
        return childCommand(java, parent, jvmFlags, profile, name, classPath, CMTIME, args);
    }

    /**
     * As {@link #childCommand(String, List, List, Path, String, String, List)}, running {@code main} (the cmtime port
     * or {@link MinimalCmtime}, which take the same arguments) instead of the port.
     */
    static List<String> childCommand(String java, List<String> parent, List<String> jvmFlags, Path profile,
            String name, String classPath, String main, List<String> args) {
        List<String> jvm = new java.util.ArrayList<>(List.of(java));
        for (String a : parent) {
            if (AotCache.inherited(a)) {
                jvm.add(a);
            }
        }
        jvm.addAll(jvmFlags);
        if (profile != null) {
            // 1 ms samples (profile's 10/20 ms give a few dozen per run of a step here)
            jvm.add("-XX:StartFlightRecording:filename=" + profile.resolve(name + ".jfr") + ",settings=profile,"
                    + "jdk.ExecutionSample#period=1ms,jdk.NativeMethodSample#period=1ms");
        }
        jvm.addAll(List.of("-cp", classPath, main, "--provider", "rdma-core"));
        jvm.addAll(args);
        return jvm;
    }
}
