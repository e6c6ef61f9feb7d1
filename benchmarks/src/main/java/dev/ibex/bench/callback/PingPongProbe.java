package dev.ibex.bench.callback;

import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.ProbeRuns;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The soft-roce callback ping-pong alone, for A/B runs of two builds and for profiling (docs/benchmarks.md): one
 * connection on loopback, warm-up runs, then measured runs, each {@code --round-trips} long; it prints a line per
 * measured run and one summary line (the median run's p50 and the process's CPU time per round trip, every thread),
 * which a script alternating fresh JVMs of two builds collects. Before the measured runs it prints its process id, so
 * {@code perf record -p} or {@code perf stat -p} can attach ({@code --hold-millis} gives them time). With
 * {@code --pause-micros N} the client sends each request from a loop timer N µs after the reply — sparse traffic, in
 * which both loops idle between round trips (what an idle policy costs there: docs/benchmarks.md); the p50 is then
 * still from request to reply, and each run's line also gives its wall time per round trip, the pause included.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.ibex.bench.callback.PingPongProbe
 * </pre>
 *
 * <p><b>Threading.</b> The command runs on the calling thread; the ping-pong on its two loops.
 */
@Command(name = "PingPongProbe", mixinStandardHelpOptions = true,
        description = "The soft-roce callback ping-pong (64 B by default) in one JVM: p50 and CPU per round trip.")
public final class PingPongProbe implements Callable<Integer> {
    @Option(names = "--spin-nanos", description = "how long each loop spins before it blocks (default: ${DEFAULT-VALUE})")
    long spinNanos;

    @Option(names = "--runs", description = "measured runs (default: ${DEFAULT-VALUE})")
    int runs = 5;

    @Option(names = "--warmup-runs", description = "runs before the measured ones (default: ${DEFAULT-VALUE})")
    int warmupRuns = 3;

    @Option(names = "--round-trips", description = "round trips per run (default: ${DEFAULT-VALUE})")
    int roundTrips = 20_000;

    @Option(names = "--size", description = "message bytes (default: ${DEFAULT-VALUE})")
    int size = 64;

    @Option(names = "--cm-port", description = "the server's RDMA CM port (default: ${DEFAULT-VALUE})")
    int cmPort = 7490;

    @Option(names = "--credits-in-messages", arity = "1", description = "whether an owed credit update rides in the "
            + "reply (ConnectionOptions.withCreditsInMessages; default: ${DEFAULT-VALUE})")
    boolean creditsInMessages = true;

    @Option(names = "--hold-millis", description = "pause after printing the process id, before the measured runs "
            + "(default: ${DEFAULT-VALUE})")
    long holdMillis;

    @Option(names = "--pause-micros", description = "the client's pause between a reply and its next request, a loop "
            + "timer: sparse traffic (default: ${DEFAULT-VALUE})")
    long pauseMicros;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    /** A probe printing to {@code System.out}. */
    public PingPongProbe() {
        this(System.out);
    }

    PingPongProbe(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new PingPongProbe(), args));
    }

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || warmupRuns < 0 || roundTrips < 1 || size < 1 || holdMillis < 0 || spinNanos < 0
                || pauseMicros < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--runs, --round-trips and --size must be at least 1, the others not negative");
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Duration limit = Duration.ofSeconds(60);
        try (PingPong p = PingPong.open(LoopbackHosts.softRoce(cmPort, spinNanos), size, Duration.ofSeconds(10),
                PingPong.options(size).withCreditsInMessages(creditsInMessages))) {
            p.pauseBetween(TimeUnit.MICROSECONDS.toNanos(pauseMicros));
            for (int i = 0; i < warmupRuns; i++) {
                p.run(roundTrips, limit);
            }
            ProbeRuns.announce(out, "credits in messages " + creditsInMessages, holdMillis);
            double[] p50 = new double[runs];
            double[] cpu = new double[runs];
            for (int i = 0; i < runs; i++) {
                long c0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                Histogram h = p.run(roundTrips, limit);
                double wall = (System.nanoTime() - t0) / 1e3 / roundTrips;
                cpu[i] = (os.getProcessCpuTime() - c0) / 1e3 / roundTrips;
                p50[i] = h.getValueAtPercentile(50) / 1e3;
                out.printf("run %d of %d: p50 %.1f us, p99 %.1f us, CPU per round trip %.1f us, wall per round trip %.1f"
                        + " us%n", i + 1, runs, p50[i], h.getValueAtPercentile(99) / 1e3, cpu[i], wall);
            }
            out.printf("p50 median %.1f (min %.1f) cpu/rt median %.1f (min %.1f)%n", ProbeRuns.median(p50),
                    ProbeRuns.min(p50), ProbeRuns.median(cpu), ProbeRuns.min(cpu));
        }
        return Cli.OK;
    }
}
