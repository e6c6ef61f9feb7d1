package dev.ibex.it.reactive;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * A peer ({@link ReactiveEchoPeer}, {@link ReactiveDatagramPeer}) in a JVM of its own: this JVM's java command ({@code ProcessHandle}) and class path,
 * the given system properties; stdout and stderr merged and collected line by line. {@link #close()} kills it.
 */
final class PeerProcess implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final String name;

    private PeerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        Thread.ofPlatform().daemon().name("peer-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                    }
                }
            } catch (IOException gone) {
                // the process ended
            }
        });
    }

    /** Starts {@code ReactiveEchoPeer args} with {@code -D} properties ({@code key=value}). */
    static PeerProcess start(String name, List<String> properties, String... args) {
        return start(name, ReactiveEchoPeer.class, properties, args);
    }

    /** Starts {@code main args} with {@code -D} properties ({@code key=value}). */
    static PeerProcess start(String name, Class<?> main, List<String> properties, String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow(() ->
                new IllegalStateException("cannot tell this JVM's java command"));
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-XX:TieredStopAtLevel=1", "-Xss512k"));
        for (String p : properties) {
            cmd.add("-D" + p);
        }
        cmd.addAll(List.of("-cp", classPath(), main.getName()));
        cmd.addAll(List.of(args));
        try {
            return new PeerProcess(name, new ProcessBuilder(cmd).redirectErrorStream(true).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * This JVM's class path as seen by the test classes: {@code java.class.path} plus the URLs of the class loaders
     * that loaded them (the VM runs tests with the JUnit console launcher, whose {@code --class-path} is a loader
     * of its own, not {@code java.class.path}).
     */
    static String classPath() {
        java.util.LinkedHashSet<String> entries = new java.util.LinkedHashSet<>();
        for (ClassLoader l = ReactiveEchoPeer.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof java.net.URLClassLoader u) {
                for (java.net.URL url : u.getURLs()) {
                    try {
                        entries.add(java.nio.file.Path.of(url.toURI()).toString());
                    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                        // not a file: skip
                    }
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)));
        return String.join(java.io.File.pathSeparator, entries);
    }

    /** Waits (bounded) for a line starting with {@code prefix} and returns it. */
    String await(String prefix, Duration limit) {
        Awaitility.await().atMost(limit).pollInterval(Duration.ofMillis(50))
                .alias(name + " printing '" + prefix + "'; output so far:\n" + output())
                .until(() -> line(prefix) != null || !process.isAlive());
        String l = line(prefix);
        if (l == null) {
            drained();
            l = line(prefix);
        }
        if (l == null) {
            throw new AssertionError(name + " ended without printing '" + prefix + "':\n" + output());
        }
        return l;
    }

    /** The process has ended: give the reader a moment (bounded) to take its last lines. */
    private void drained() {
        Awaitility.await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ZERO).until(() -> true);
    }

    String line(String prefix) {
        synchronized (lines) {
            return lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
        }
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** The exit code, waiting at most {@code limit}. */
    int exitCode(Duration limit) {
        Awaitility.await().atMost(limit).alias(name + " exiting; output:\n" + output()).until(() -> !process.isAlive());
        return process.exitValue();
    }

    /** Kills the process at once (SIGKILL), as a crash would. */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }
}
