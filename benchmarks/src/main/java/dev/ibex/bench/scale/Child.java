package dev.ibex.bench.scale;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark process of its own: this JVM's {@code java} command and class path (the shaded benchmarks jar), the
 * given JVM flags, a main class and arguments. It takes commands on stdin, one per line, and answers with lines on
 * stdout that start with a keyword ({@code READY …}, {@code STATS …}); every wait for such a line is bounded and
 * {@link #close()} kills what is still running.
 */
final class Child implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Writer stdin;
    private final List<String> lines = new ArrayList<>();
    private int consumed;

    private Child(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("child-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException gone) {
                // the process ended
            } finally {
                synchronized (lines) {
                    lines.notifyAll();
                }
            }
        });
    }

    /** Starts {@code main} with {@code jvmFlags} (e.g. {@code -Xmx1g}) and {@code args}; stderr goes with stdout. */
    static Child start(String name, List<String> jvmFlags, Class<?> main, List<String> args) {
        String java = ProcessHandle.current().info().command().orElseThrow(() ->
                new IllegalStateException("cannot tell this JVM's java command"));
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow"));
        cmd.addAll(jvmFlags);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(args);
        try {
            return new Child(name, new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends one command line. */
    void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException(name + " does not take commands any more (" + e.getMessage() + "):\n"
                    + tail(), e);
        }
    }

    /**
     * The next line (after those already taken) that starts with {@code keyword}, waiting at most {@code limit};
     * fails with the process's output when it does not come or the process ends first.
     */
    String await(String keyword, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lines) {
            while (true) {
                for (int i = consumed; i < lines.size(); i++) {
                    if (lines.get(i).startsWith(keyword)) {
                        consumed = i + 1;
                        return lines.get(i);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && drained())) {
                    throw new IllegalStateException(name + (process.isAlive() ? " printed no '" + keyword + "' within "
                            + limit.toSeconds() + " s" : " ended (exit " + process.exitValue() + ") without '" + keyword
                            + "'") + "; its last lines:\n" + tail());
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + name, e);
                }
            }
        }
    }

    /** Whether the reader has had a moment to take the last lines of an ended process. */
    private boolean drained() {
        try {
            process.getInputStream().available();
        } catch (IOException closed) {
            return true;
        }
        return !process.isAlive();
    }

    /** The last 30 lines printed. */
    String tail() {
        synchronized (lines) {
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
    }

    /** Waits (bounded) for the process to exit after its last command. */
    int exit(Duration limit) {
        try {
            if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " did not exit within " + limit.toSeconds() + " s:\n" + tail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
