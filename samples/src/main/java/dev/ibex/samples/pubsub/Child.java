package dev.ibex.samples.pubsub;

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
import java.util.function.Consumer;

/**
 * A subscriber process of the pub/sub sample: this JVM's {@code java} and module or class path running
 * {@code main} with {@code args}; its output read line by line, each line handed to a listener and kept.
 * {@link #close()} kills it.
 */
final class Child implements AutoCloseable {
    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private boolean eof; // guarded by lines

    Child(String name, Class<?> main, List<String> jvmOptions, List<String> args, Consumer<String> listener) {
        this.name = name;
        Module module = main.getModule();
        List<String> cmd = new ArrayList<>(List.of(javaCommand(),
                "--enable-native-access=" + (module.isNamed() ? "dev.ibex.verbs" : "ALL-UNNAMED"),
                "--sun-misc-unsafe-memory-access=allow", "-XX:+UseSerialGC", "-Xss512k"));
        cmd.addAll(jvmOptions);
        // the child runs the way this JVM does: on the module path (./ibex demo) or on the class path (tests)
        cmd.addAll(module.isNamed()
                ? List.of("-p", System.getProperty("jdk.module.path"), "-m", module.getName() + "/" + main.getName())
                : List.of("-cp", classPath(), main.getName()));
        cmd.addAll(args);
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        Thread.ofPlatform().daemon().name("child-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                    listener.accept(line);
                }
            } catch (IOException gone) {
                // the process ended
            } finally {
                synchronized (lines) {
                    eof = true;
                    lines.notifyAll();
                }
            }
        });
    }

    String name() {
        return name;
    }

    /** The first line starting with {@code prefix}, waiting at most {@code limit}; null when none came. */
    String await(String prefix, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        synchronized (lines) {
            while (true) {
                for (String l : lines) {
                    if (l.startsWith(prefix)) {
                        return l;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || eof) {
                    return null;
                }
                lines.wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
        }
    }

    /** Everything it printed so far. */
    String output() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    /** Waits for the exit at most {@code limit}; -1 when it is still running. */
    int exitCode(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS) ? process.exitValue()
                : -1;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static String javaCommand() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * This JVM's class path: {@code java.class.path} plus the URLs of the loaders above this class (a test launcher
     * may load classes through a loader of its own).
     */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = Child.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader u) {
                for (java.net.URL url : u.getURLs()) {
                    try {
                        entries.add(Path.of(url.toURI()).toString());
                    } catch (URISyntaxException | IllegalArgumentException notAFile) {
                        // skip
                    }
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }
}
