package dev.ibex.samples.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

/**
 * What every port of an rdma-core tool shares: where it prints, and its current {@link SampleRun}, which
 * {@link #stop()} ends (tests and launchers stop a server that would otherwise wait for clients forever).
 */
public abstract class SampleCommand implements Callable<Integer> {
    protected final PrintStream out;
    protected final PrintStream err;
    private volatile SampleRun current;

    protected SampleCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Makes {@code run} the one {@link #stop()} ends, and returns it. */
    protected final SampleRun begin(SampleRun run) {
        current = run;
        return run;
    }

    /** Ends the current run now with exit status 0. Any thread. */
    public void stop() {
        SampleRun r = current;
        if (r != null) {
            r.finish(0);
        }
    }
}
