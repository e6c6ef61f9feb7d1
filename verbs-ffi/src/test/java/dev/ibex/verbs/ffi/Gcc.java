package dev.ibex.verbs.ffi;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Test helper: compiles and runs small C programs against the installed rdma-core headers. */
public final class Gcc {
    static final Path VERBS_H = Path.of("/usr/include/infiniband/verbs.h");
    static final Path RDMA_CMA_H = Path.of("/usr/include/rdma/rdma_cma.h");

    private Gcc() {
    }

    /** Skips the calling test (with the reason shown) unless gcc and the rdma-core headers are installed. */
    public static void assumeToolchain() {
        assumeTrue(onPath("gcc"), "gcc is not installed: apt-get install gcc");
        assumeTrue(Files.exists(VERBS_H) && Files.exists(RDMA_CMA_H),
                "rdma-core headers are not installed: apt-get install libibverbs-dev librdmacm-dev");
    }

    static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    /** Compiles {@code source} into {@code output} with extra gcc arguments; fails with gcc's output. */
    static void compile(Path source, Path output, String... extra) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("gcc", "-std=gnu11", "-O1", "-Wall", "-o", output.toString(), source.toString()));
        cmd.addAll(List.of(extra));
        Result r = run(cmd, 120);
        if (r.exit != 0) {
            throw new AssertionError("gcc failed (" + r.exit + "):\n" + r.output);
        }
    }

    record Result(int exit, String output) {
    }

    /** Runs a command with a bounded wait, stdout and stderr merged. */
    static Result run(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile("ibex-run", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(cmd + " did not finish within " + timeoutSeconds + " s");
            }
            return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
