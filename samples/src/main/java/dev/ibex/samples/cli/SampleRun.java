package dev.ibex.samples.cli;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One run of a sample program: its event loop, where it prints, and the exit status it ends with. The program's
 * callbacks (on the loop) call {@link #finish}; the main thread {@link #await}s it, bounded by {@code --timeout}.
 */
public final class SampleRun implements AutoCloseable {
    /** The exit status of a run that hit its {@code --timeout} (ETIMEDOUT, as the C tools return errno values). */
    public static final int TIMED_OUT = 110;

    private final EventLoopGroup group;
    private final PrintStream out;
    private final PrintStream err;
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();

    public SampleRun(EventLoopGroup group, PrintStream out, PrintStream err) {
        this.group = group;
        this.out = out;
        this.err = err;
    }

    /** The loop every endpoint of the program lives on. */
    public EventLoop loop() {
        return group.loops().getFirst();
    }

    public EventLoopGroup group() {
        return group;
    }

    public PrintStream out() {
        return out;
    }

    public PrintStream err() {
        return err;
    }

    /** Ends the run with {@code status}; the first call wins. Any thread. */
    public void finish(int status) {
        out.flush();
        exit.complete(status);
    }

    public boolean isFinished() {
        return exit.isDone();
    }

    /** Waits for {@link #finish} at most {@code timeout} ({@code null}: forever) and returns the exit status. */
    public int await(Duration timeout) {
        try {
            return timeout == null ? exit.get() : exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            err.println("timed out after " + timeout.toSeconds() + " s");
            exit.complete(TIMED_OUT);
            return TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        } catch (ExecutionException e) {
            err.println("failed: " + e.getCause());
            return 1;
        }
    }

    /** Closes every endpoint left and the provider. */
    @Override
    public void close() {
        group.close();
        out.flush();
        err.flush();
    }
}
