package dev.ibex.bench.faults;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A {@link MatrixPeer} in a JVM of its own — this JVM's java command and class path (a test's class loaders included,
 * as integration-tests' {@code PeerProcess} does) — so that it can be killed with SIGKILL. Its output is collected
 * line by line; {@link #close()} kills it if it still runs.
 *
 * <p>Threading: one owner thread; the output is collected on a daemon thread.
 */
final class PeerJvm implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new ArrayList<>();

    private PeerJvm(Process process) {
        this.process = process;
        Thread.ofPlatform().daemon().name("matrix-peer-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                }
            } catch (IOException gone) {
                // the process ended
            }
        });
    }

    /** Starts {@code MatrixPeer args} and waits (at most {@code limit}) until it prints {@code READY}. */
    static PeerJvm start(Duration limit, String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow(() ->
                new IllegalStateException("cannot tell this JVM's java command"));
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx256m",
                "-cp", classPath(), MatrixPeer.class.getName()));
        cmd.addAll(List.of(args));
        PeerJvm p;
        try {
            p = new PeerJvm(new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            p.await("READY", limit);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** This JVM's class path as its classes see it: {@code java.class.path} plus URL class loaders' URLs. */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = PeerJvm.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                for (var url : u.getURLs()) {
                    try {
                        entries.add(Path.of(url.toURI()).toString());
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        // not a file
                    }
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }

    private void await(String prefix, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lines) {
            while (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive()) {
                    throw new IllegalStateException("the matrix peer did not print " + prefix + " within "
                            + limit.toSeconds() + " s" + (process.isAlive() ? "" : " (it exited)") + ":\n"
                            + String.join("\n", lines));
                }
                try {
                    lines.wait(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(left))));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
        }
    }

    /** Kills the process at once (SIGKILL), as a crash would, and waits for it to be gone. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
