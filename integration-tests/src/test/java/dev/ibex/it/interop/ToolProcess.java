package dev.ibex.it.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * One of rdma-core's tools (rping, ucmatose …) running as a real process, line-buffered ({@code stdbuf -oL}) into a
 * file so that its output can be read while it runs. Every wait is bounded; {@link #close()} kills what is left.
 */
final class ToolProcess implements AutoCloseable {
    private final List<String> command;
    private final Path log;
    private final Process process;

    private ToolProcess(List<String> command) throws IOException {
        this.command = command;
        this.log = Files.createTempFile("interop-" + Path.of(command.getFirst()).getFileName(), ".log");
        List<String> full = new ArrayList<>(List.of("stdbuf", "-oL", "-eL"));
        full.addAll(command);
        this.process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    }

    /** Starts {@code command}. */
    static ToolProcess start(String... command) {
        try {
            return new ToolProcess(List.of(command));
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
    }

    /** Its stdout and stderr so far. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** Waits at most {@code limit} until a line matches {@code regex}; fails with the output otherwise. */
    ToolProcess awaitLine(String regex, Duration limit) {
        Pattern p = Pattern.compile(regex);
        Awaitility.await(String.join(" ", command) + " prints /" + regex + "/").atMost(limit)
                .pollInterval(Duration.ofMillis(100))
                .failFast("it exited", () -> !process.isAlive() && output().lines().noneMatch(
                        l -> p.matcher(l).find()))
                .until(() -> output().lines().anyMatch(l -> p.matcher(l).find()));
        return this;
    }

    /** Its exit status, waiting at most {@code limit}; kills it and fails with its output if it does not end. */
    int exitCode(Duration limit) {
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                throw new AssertionError(String.join(" ", command) + " did not end within " + limit + ":\n"
                        + output());
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Stops a server that runs until killed (SIGTERM, then SIGKILL) and returns its output. */
    String stop(Duration limit) {
        process.destroy();
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return output();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException ignored) {
            // the VM's tmpfs goes away with it
        }
    }

    @Override
    public String toString() {
        return String.join(" ", command);
    }
}
