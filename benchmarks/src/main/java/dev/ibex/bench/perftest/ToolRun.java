package dev.ibex.bench.perftest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of an rdma-core tool (perftest, cmtime) as a child process, its output captured to a file, bounded by a
 * time limit after which it is killed.
 */
public final class ToolRun implements AutoCloseable {
    private final List<String> command;
    private final Process process;
    private final Path output;
    private final long startedAt = System.nanoTime();
    private long endedAt;

    private ToolRun(List<String> command, Process process, Path output) {
        this.command = command;
        this.process = process;
        this.output = output;
    }

    /** Wall time from start to the exit seen by {@link #await} (process start and teardown included), or -1. */
    public long elapsedNanos() {
        return endedAt == 0 ? -1 : endedAt - startedAt;
    }

    /** Starts {@code command} with stdout and stderr going to one temporary file. */
    public static ToolRun start(List<String> command) {
        try {
            Path out = Files.createTempFile("ibex-bench-" + Path.of(command.getFirst()).getFileName(), ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            return new ToolRun(List.copyOf(command), p, out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + String.join(" ", command)
                    + " (is rdma-core's perftest / rdmacm-utils installed?)", e);
        }
    }

    /** Waits for the exit at most {@code limit} (then kills it) and returns the output; non-zero exit throws. */
    public String await(Duration limit) {
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException(describe() + " did not finish within " + limit.toSeconds() + " s:\n"
                        + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + describe(), e);
        }
        endedAt = System.nanoTime();
        String out = output();
        if (process.exitValue() != 0) {
            throw new IllegalStateException(describe() + " exited with " + process.exitValue() + ":\n" + out);
        }
        return out;
    }

    /**
     * Asks the process to end (SIGTERM, as a user's Ctrl-C or {@code kill}), waits for its exit at most {@code limit}
     * (then kills it) and returns its output. Unlike {@link #close}, which gives it 5 s, this lets a JVM finish what
     * it does at exit: one trained with {@code -XX:AOTCacheOutput} writes its AOT cache then, which takes minutes in
     * the TCG guest.
     *
     * @param limit how long the process may take to exit
     * @return what it printed
     * @throws IllegalStateException when it did not exit within {@code limit}
     */
    public String stop(Duration limit) {
        process.destroy();
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                throw new IllegalStateException(describe() + " did not exit within " + limit.toSeconds()
                        + " s of SIGTERM:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + describe(), e);
        }
        endedAt = System.nanoTime();
        return output();
    }

    /** Whether the process still runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** What it printed so far. */
    public String output() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e + ")";
        }
    }

    public String describe() {
        return String.join(" ", command);
    }

    /** Kills the process if it still runs and removes its output file. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(output);
        } catch (IOException ignored) {
            // a temporary file
        }
    }

    static List<String> args(String... parts) {
        return new ArrayList<>(List.of(parts));
    }
}
