package dev.ibex.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.bench.apm.FailoverBench;
import dev.ibex.bench.callback.ExposureSoak;
import dev.ibex.bench.callback.PingPongProbe;
import dev.ibex.bench.loopback.LoopbackBench;
import dev.ibex.bench.rsocket.RSocketBench;
import dev.ibex.bench.scale.ScaleBench;
import dev.ibex.bench.soak.SoakBench;
import dev.ibex.bench.vm.VmBench;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every harness's command line: {@code --help} lists the options docs/benchmarks.md and {@code ./ibex} document and
 * exits 0; an unknown option, a value of the wrong type or out of range exits 2 before anything runs.
 */
class CliTest {

    /** A harness's command and the options its documentation names. */
    record Harness(String name, Supplier<Object> command, List<String> documented, List<String> badValue) {}

    static final List<Harness> HARNESSES = List.of(
            new Harness("LoopbackBench", LoopbackBench.Command::new, List.of("--rounds", "--quick", "--only",
                    "--no-jmh", "--jmh-log", "--json", "--plots"), List.of("--only", "nope")),
            new Harness("VmBench", VmBench.Command::new, List.of("--rounds", "--quick", "--only", "--spin-nanos",
                    "--json"), List.of("--spin-nanos", "lots")),
            new Harness("FailoverBench", FailoverBench.Command::new, List.of("--cuts", "--timeouts", "--retries",
                    "--json", "--plots"), List.of("--retries", "1,9")),
            new Harness("SoakBench", SoakBench.Command::new, List.of("--only", "--seeds", "--units", "--packets",
                    "--cycles", "--lanes", "--report", "--no-report"), List.of("--only", "everything")),
            new Harness("ScaleBench", ScaleBench.Command::new, List.of("--quick", "--connections", "--clients",
                    "--groups", "--flood-seconds", "--flood-rate", "--no-large", "--parts", "--json", "--plots"),
                    List.of("--parts", "connections,nope")),
            new Harness("ExposureSoak", ExposureSoak.Command::new, List.of("--cycles", "--json"),
                    List.of("--cycles", "1")),
            new Harness("RSocketBench", RSocketBench.Command::new, List.of("--rounds", "--quick", "--plot",
                    "--json"), List.of("--rounds", "0")),
            new Harness("PingPongProbe", PingPongProbe::new, List.of("--spin-nanos", "--runs", "--warmup-runs",
                    "--round-trips", "--hold-millis"), List.of("--runs", "0")));

    @Test
    void helpListsTheDocumentedOptionsAndExitsZero() {
        for (Harness h : HARNESSES) {
            Run r = run(h.command().get(), "--help");
            assertThat(r.status()).as(h.name()).isEqualTo(Cli.OK);
            for (String option : h.documented()) {
                assertThat(r.out()).as(h.name() + " --help").contains(option);
            }
        }
    }

    @Test
    void badUsageExitsTwoBeforeAnythingRuns() {
        for (Harness h : HARNESSES) {
            Run unknown = run(h.command().get(), "--no-such-option");
            assertThat(unknown.status()).as(h.name() + " unknown option").isEqualTo(Cli.USAGE);
            assertThat(unknown.err()).as(h.name()).contains("Unknown option: '--no-such-option'");
            Run bad = run(h.command().get(), h.badValue().toArray(String[]::new));
            assertThat(bad.status()).as(h.name() + " " + h.badValue()).isEqualTo(Cli.USAGE);
        }
        assertThat(run(new LoopbackBench.Command(), "--rounds", "four").status()).isEqualTo(Cli.USAGE);
    }

    @Test
    void theVmHarnessRefusesToRunOutsideTheVm() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("IBEX_VM_ADDR") == null, "running inside the VM");
        Run r = run(new VmBench.Command(), "--quick");
        assertThat(r.status()).isEqualTo(Cli.USAGE);
        assertThat(r.err()).contains("IBEX_VM_ADDR is not set");
    }

    record Run(int status, String out, String err) {}

    static Run run(Object command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cl = Cli.commandLine(command)
                .setOut(new java.io.PrintWriter(new PrintStream(out, true, StandardCharsets.UTF_8), true))
                .setErr(new java.io.PrintWriter(new PrintStream(err, true, StandardCharsets.UTF_8), true));
        int status = cl.execute(args);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
