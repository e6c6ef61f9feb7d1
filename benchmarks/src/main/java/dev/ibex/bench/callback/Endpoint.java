package dev.ibex.bench.callback;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.Operation;
import java.util.concurrent.CompletableFuture;

/**
 * A workload's side of a connection: a {@link ConnectionHandler} that reports establishment and any failure
 * through futures, so the driving thread can wait for them with a bound. Data callbacks are the workload's.
 */
abstract class Endpoint implements ConnectionHandler {
    final CompletableFuture<Connection> established = new CompletableFuture<>();
    /** The run in progress (set by the driving thread before it starts one); a failure fails it. */
    volatile CompletableFuture<?> run;
    private volatile Throwable failure;

    @Override
    public void onEstablished(Connection c) {
        established.complete(c);
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        fail(error);
    }

    @Override
    public void onError(Connection c, Throwable error) {
        established.completeExceptionally(error);
        fail(error);
    }

    @Override
    public void onDisconnected(Connection c) {
        fail(new IllegalStateException("the peer disconnected during the benchmark"));
    }

    void fail(Throwable t) {
        if (failure == null) {
            failure = t;
        }
        CompletableFuture<?> r = run;
        if (r != null) {
            r.completeExceptionally(t);
        }
    }

    /** A new run's future; fails at once if this side has failed before. */
    <T> CompletableFuture<T> newRun() {
        CompletableFuture<T> f = new CompletableFuture<>();
        run = f;
        Throwable t = failure;
        if (t != null) {
            f.completeExceptionally(t);
        }
        return f;
    }
}
