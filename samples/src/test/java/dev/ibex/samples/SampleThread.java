package dev.ibex.samples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import picocli.CommandLine;

/**
 * A sample program running in this JVM on a thread of its own, as its {@code main} would run it, with its output
 * captured. {@link #exitCode} waits a bounded time.
 *
 * @param <T> the command
 */
public final class SampleThread<T> {
    private final T command;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    private SampleThread(BiFunction<PrintStream, PrintStream, T> factory, List<String> args) {
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        this.command = factory.apply(o, e);
        Thread.ofPlatform().daemon().name("sample-main").start(() -> {
            try {
                exit.complete(new CommandLine(command).setOut(new java.io.PrintWriter(o, true))
                        .setErr(new java.io.PrintWriter(e, true)).execute(args.toArray(String[]::new)));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        });
    }

    /** Starts {@code factory}'s command (given stdout and stderr) with {@code args}. */
    public static <T> SampleThread<T> start(BiFunction<PrintStream, PrintStream, T> factory, List<String> args) {
        return new SampleThread<>(factory, args);
    }

    public T command() {
        return command;
    }

    /** The exit status, waiting at most {@code limit}; fails the test with the output so far when it is not done. */
    public int exitCode(Duration limit) {
        try {
            return exit.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("the sample did not end within " + limit + " (" + e + "); output:\n" + output(),
                    e);
        }
    }

    public boolean isDone() {
        return exit.isDone();
    }

    public String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    public String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Both streams, for failure messages. */
    public String output() {
        return "--- stdout\n" + out() + "--- stderr\n" + err();
    }
}
