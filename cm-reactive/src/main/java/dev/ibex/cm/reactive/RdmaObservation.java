package dev.ibex.cm.reactive;

import reactor.util.context.Context;

/**
 * One observed connect or accepted connection, for tracing: made by {@link RdmaMetricsRecorder#observeConnect} or
 * {@link RdmaMetricsRecorder#observeConnection} when it starts, with its parent taken from the subscriber's Reactor
 * {@code Context} (the {@code ibex-micrometer} artifact makes Micrometer {@code Observation}s). Ended exactly once;
 * may be ended on any thread.
 */
public interface RdmaObservation {

    /**
     * The {@code Context} the connection's handler runs with: {@code base} plus this observation as the current one,
     * so what the handler observes is its child. Default: {@code base}.
     *
     * @param base the subscriber's context
     * @return the context for the handler
     */
    default Context context(Context base) {
        return base;
    }

    /**
     * The connect or accept ended.
     *
     * @param status {@code "SUCCESS"} (established), {@code "REJECTED"}, a
     *     {@link dev.ibex.cm.RdmaConnectException.Reason} name, {@code "ERROR"} or {@code "CANCELLED"}
     * @param error why it failed ({@code null} on success and cancel, and for a server's own rejection)
     */
    void stop(String status, Throwable error);
}
