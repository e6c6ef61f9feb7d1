package dev.ibex.bench.setup;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.ProbeRuns;
import dev.ibex.cm.spi.IdleSpin;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * soft-roce connection setup alone, warm, for A/B runs of two builds and for profiling (docs/benchmarks.md,
 * "Connection setup on loopback"): {@link RdmaSetup}'s sequential runs (connect, ESTABLISHED, close, the next) or
 * its concurrent ones ({@code --in-flight} above 1), after warm-up runs long enough for the JIT to finish with the
 * setup path: on this 2-core machine the sequential p50 keeps falling for about 30,000 connections (hence 160 runs of
 * 200; the {@code setup} workload of {@code LoopbackBench} warms up with about 10,000, so its figures are partly
 * not-yet-compiled code's). It prints a line per measured run and a summary line: the median run's
 * p50 (sequential) or rate (concurrent) and the process's CPU time per connection set up and closed, every thread.
 * Before the measured runs it prints its process id, so {@code perf stat -p} can attach ({@code --hold-millis}).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.ibex.bench.setup.SetupProbe
 * </pre>
 *
 * <p><b>Threading.</b> The command runs on the calling thread; the connections on the two hosts' loops.
 */
@Command(name = "SetupProbe", mixinStandardHelpOptions = true,
        description = "soft-roce connection setup on loopback, warm: p50 or rate, and CPU per connection.")
public final class SetupProbe implements Callable<Integer> {
    @Option(names = "--connections", description = "connections per run (default: ${DEFAULT-VALUE})")
    int connections = 200;

    @Option(names = "--in-flight", description = "connects not yet established at a time; 1: one at a time, each "
            + "closed before the next (default: ${DEFAULT-VALUE})")
    int inFlight = 1;

    @Option(names = "--warmup-runs", description = "runs before the measured ones (default: ${DEFAULT-VALUE})")
    int warmupRuns = 160;

    @Option(names = "--runs", description = "measured runs (default: ${DEFAULT-VALUE})")
    int runs = 20;

    @Option(names = "--cm-port", description = "the server's RDMA CM port (default: ${DEFAULT-VALUE})")
    int cmPort = 7491;

    @Option(names = "--hold-millis", description = "pause after printing the process id, before the measured runs "
            + "(default: ${DEFAULT-VALUE})")
    long holdMillis;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    /** A probe printing to {@code System.out}. */
    public SetupProbe() {
        this(System.out);
    }

    SetupProbe(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new SetupProbe(), args));
    }

    @Override
    public Integer call() throws Exception {
        if (connections < 1 || inFlight < 1 || runs < 1 || warmupRuns < 0 || holdMillis < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--connections, --in-flight and --runs must be at least 1, the others not negative");
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        boolean sequential = inFlight == 1;
        try (RdmaSetup s = RdmaSetup.open(LoopbackHosts.softRoce(cmPort), Duration.ofSeconds(30))) {
            for (int i = 0; i < warmupRuns; i++) {
                run(s, sequential);
            }
            ProbeRuns.announce(out, connections + " connections per run, " + inFlight + " in flight", holdMillis);
            double[] figure = new double[runs];
            double[] cpu = new double[runs];
            for (int i = 0; i < runs; i++) {
                long c0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                double f = run(s, sequential);
                long wall = System.nanoTime() - t0;
                cpu[i] = (os.getProcessCpuTime() - c0) / 1e3 / connections;
                figure[i] = f;
                out.printf("run %d of %d: %s %.1f, wall per connection %.1f us, CPU per connection %.1f us%n", i + 1,
                        runs, sequential ? "p50 us" : "conn/s", f, wall / 1e3 / connections, cpu[i]);
            }
            out.printf("%s median %.1f cpu/conn median %.1f (min %.1f)%n", sequential ? "p50" : "rate",
                    ProbeRuns.median(figure), ProbeRuns.median(cpu), ProbeRuns.min(cpu));
            out.printf("loop threads moved off a shared CPU: %d (IdleSpin.sharedCpuMoves, the whole JVM)%n",
                    IdleSpin.sharedCpuMoves());
        }
        return Cli.OK;
    }

    /** One run: the p50 in µs (sequential) or connections per second (concurrent). */
    private double run(RdmaSetup s, boolean sequential) {
        if (sequential) {
            Histogram h = s.sequential(connections);
            return h.getValueAtPercentile(50) / 1e3;
        }
        return connections * 1e9 / s.concurrent(connections, inFlight);
    }
}
