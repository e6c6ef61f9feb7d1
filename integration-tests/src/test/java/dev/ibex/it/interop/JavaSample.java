package dev.ibex.it.interop;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import picocli.CommandLine;

/**
 * A sample port (dev.ibex.samples) running in this JVM on a thread of its own on the rdma-core provider, as its
 * {@code main} would, with its output captured: the VM starts one JVM for all tests, not one per program.
 *
 * @param <T> the command
 */
final class JavaSample<T> {
    private final T command;
    private final List<String> args;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    private JavaSample(BiFunction<PrintStream, PrintStream, T> factory, List<String> args) {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        this.command = factory.apply(o, e);
        this.args = new ArrayList<>(args);
        this.args.addAll(List.of("--provider", "rdma-core", "--timeout", "120"));
        Thread.ofPlatform().daemon().name("java-" + args.getFirst()).start(() -> {
            try {
                exit.complete(new CommandLine(command).setOut(new PrintWriter(o, true))
                        .setErr(new PrintWriter(e, true)).execute(this.args.toArray(String[]::new)));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        });
    }

    /** Starts {@code factory}'s command with {@code args} on the rdma-core provider. */
    static <T> JavaSample<T> start(BiFunction<PrintStream, PrintStream, T> factory, String... args) {
        return new JavaSample<>(factory, List.of(args));
    }

    T command() {
        return command;
    }

    /** The exit status, waiting at most {@code limit}; fails with the output when it has not ended. */
    int exitCode(Duration limit) {
        try {
            return exit.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("java " + args + " did not end within " + limit + " (" + e + "):\n" + output(),
                    e);
        }
    }

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String output() {
        return "--- stdout\n" + out() + "--- stderr\n" + err.toString(StandardCharsets.UTF_8);
    }
}
