package dev.ibex.bench.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code VmBench --aot}'s plumbing on the host (no RDMA): the child JVMs' command lines and, with this JDK, that a
 * trained cache is used and that a missing or mismatched one only warns.
 */
class AotCacheTest {
    /** The flags {@code ./ibex bench --vm} starts the bench JVM with (and a JFR recording of its own). */
    private static final List<String> BENCH_FLAGS = List.of("--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:ErrorFile=benchmarks/target/vm-bench/hs_err_pid%p.log", "-XX:StartFlightRecording:filename=b.jfr",
            "-XX:AOTCache=/elsewhere/bench.aot");

    @Test
    void theTrainingAndTheMeasuredChildDifferOnlyInTheAotFlag() {
        Path cache = Path.of("/results/ibex-cmtime-steps.aot");
        List<String> args = List.of("-s", "169.254.77.1", "-p", "7486", "-c", "100");
        List<String> training = CmtimeWorkloads.childCommand("/jdk/bin/java", BENCH_FLAGS, AotCache.trainingFlags(cache), null,
                "steps-train", "benchmarks.jar", args);
        List<String> measured = CmtimeWorkloads.childCommand("/jdk/bin/java", BENCH_FLAGS, AotCache.useFlags(cache), null,
                "steps-aot-1", "benchmarks.jar", args);
        List<String> plain = CmtimeWorkloads.childCommand("/jdk/bin/java", BENCH_FLAGS, List.of(), null, "steps-1",
                "benchmarks.jar", args);

        assertThat(training).contains("-XX:AOTCacheOutput=/results/ibex-cmtime-steps.aot")
                .noneMatch(a -> a.startsWith("-XX:AOTCache="));
        assertThat(measured).contains("-XX:AOTCache=/results/ibex-cmtime-steps.aot")
                .noneMatch(a -> a.startsWith("-XX:AOTCacheOutput"));
        for (List<String> child : List.of(training, measured, plain)) {
            // what the JDK checks is passed on as the bench JVM has it; the bench's own JFR and AOT cache are not
            assertThat(child).containsSubsequence("/jdk/bin/java", "--enable-native-access=ALL-UNNAMED",
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", "benchmarks.jar",
                    "dev.ibex.samples.cmtime.Cmtime", "--provider", "rdma-core", "-s", "169.254.77.1");
            assertThat(child).noneMatch(a -> a.startsWith("-XX:StartFlightRecording"))
                    .doesNotContain("-XX:AOTCache=/elsewhere/bench.aot");
        }
        assertThat(AotCache.commandsMatch(training, measured)).isTrue();
        assertThat(plain).noneMatch(a -> a.startsWith("-XX:AOT"));
    }

    @Test
    void withAProfileTheTrainingChildRecordsJfrTooForTheModulesToMatch() {
        Path cache = Path.of("/results/ibex-cmtime-accept.aot");
        List<String> args = List.of("-b", "169.254.77.1", "-p", "7491");
        List<String> training = CmtimeWorkloads.childCommand("java", BENCH_FLAGS, AotCache.trainingFlags(cache),
                Path.of("/prof"), "accept-train", "benchmarks.jar", args);
        List<String> measured = CmtimeWorkloads.childCommand("java", BENCH_FLAGS, AotCache.useFlags(cache), Path.of("/prof"),
                "accept-aot-1", "benchmarks.jar", args);

        assertThat(training).anyMatch(a -> a.startsWith("-XX:StartFlightRecording:filename=/prof/accept-train.jfr"));
        assertThat(measured).anyMatch(a -> a.startsWith("-XX:StartFlightRecording:filename=/prof/accept-aot-1.jfr"));
        assertThat(AotCache.commandsMatch(training, measured)).isTrue();
        List<String> withoutJfr = CmtimeWorkloads.childCommand("java", BENCH_FLAGS, AotCache.useFlags(cache), null,
                "accept-aot-1", "benchmarks.jar", args);
        assertThat(AotCache.commandsMatch(training, withoutJfr)).isFalse();
    }

    @Test
    void aJvmThatCouldNotUseItsCacheIsRecognisedByItsOutput() {
        // printed by Temurin 25.0.3 for a cache made with --enable-native-access=ALL-UNNAMED, used without it
        String mismatch = """
                [0.017s][error][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
                [0.017s][error][aot] Mismatched values for property jdk.module.enable.native.access: ALL-UNNAMED specified during dump time but not during runtime
                step              total ms     max ms     min us  us / conn
                create id    :        0.34       0.08       1.32       3.41
                """;
        String garbage = """
                [0.004s][warning][aot] The AOT cache has a bad magic number: 0xb8f37747
                [0.004s][error  ][aot] An error has occurred while processing the AOT cache. Run with -Xlog:aot for details.
                """;
        // a training JVM's warnings are no refusal
        String training = """
                [3.931s][warning][aot] Skipping jdk/internal/event/Event: JFR event class
                AOTCache creation is complete: /results/ibex-cmtime-steps.aot 27234304 bytes
                """;

        assertThat(AotCache.problem(mismatch)).startsWith("[0.017s][error][aot] An error has occurred");
        assertThat(AotCache.problem(garbage)).contains("[error  ][aot]");
        assertThat(AotCache.problem(training)).isNull();
        assertThat(AotCache.problem("step              total ms\n")).isNull();
    }

    @Test
    void aParentsOwnAotAndJfrSettingsAreNotInherited() {
        assertThat(AotCache.inherited("-XX:AOTCache=/x.aot")).isFalse();
        assertThat(AotCache.inherited("-XX:AOTCacheOutput=/x.aot")).isFalse();
        assertThat(AotCache.inherited("-XX:AOTMode=on")).isFalse();
        assertThat(AotCache.inherited("-XX:SharedArchiveFile=/x.jsa")).isFalse();
        assertThat(AotCache.inherited("-Xshare:off")).isFalse();
        assertThat(AotCache.inherited("-XX:StartFlightRecording:filename=x.jfr")).isFalse();
        assertThat(AotCache.inherited("-XX:TieredStopAtLevel=1")).isTrue();
        assertThat(AotCache.inherited("--enable-native-access=ALL-UNNAMED")).isTrue();
    }

    /**
     * With this JDK: a JVM trained with the flags writes a cache at exit, a JVM with the same flags uses it, and one
     * whose cache is missing or made with other flags runs anyway (exit 0) and says so in its output.
     */
    @Test
    void thisJdkTrainsAndUsesACacheAndRunsWithoutOneThatDoesNotFit(@TempDir Path dir) throws Exception {
        Path cache = dir.resolve("version.aot");
        List<String> flags = List.of("-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

        Run train = java(flags, AotCache.trainingFlags(cache));
        assertThat(train.status).as(train.output).isZero();
        assertThat(AotCache.written(cache)).as(train.output).isTrue();

        Run use = java(flags, AotCache.useFlags(cache));
        assertThat(use.status).as(use.output).isZero();
        assertThat(AotCache.problem(use.output)).as(use.output).isNull();

        Run missing = java(flags, AotCache.useFlags(dir.resolve("none.aot")));
        assertThat(missing.status).as(missing.output).isZero();
        assertThat(AotCache.problem(missing.output)).as(missing.output).isNotNull();

        List<String> otherHeap = new ArrayList<>(flags);
        otherHeap.add("-XX:-UseCompressedOops");
        Run mismatched = java(otherHeap, AotCache.useFlags(cache));
        assertThat(mismatched.status).as(mismatched.output).isZero();
        assertThat(AotCache.problem(mismatched.output)).as(mismatched.output).isNotNull();
    }

    private record Run(int status, String output) {
    }

    private static Run java(List<String> flags, List<String> aot) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        command.addAll(flags);
        command.addAll(aot);
        command.add("-version");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
