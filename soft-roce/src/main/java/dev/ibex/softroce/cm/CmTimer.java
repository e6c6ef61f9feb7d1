package dev.ibex.softroce.cm;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The CM's timers and deferred work, backed by the provider's shared scheduler (or a virtual clock in tests). */
public interface CmTimer {

    /** A scheduled task. */
    @FunctionalInterface
    interface Cancellable {
        /** Stops the task if it has not run; idempotent. */
        void cancel();
    }

    /** Runs {@code task} once after {@code delayMillis}. */
    Cancellable schedule(long delayMillis, Runnable task);

    /** Runs {@code task} soon, on the timer's thread (never on the caller's). */
    default void execute(Runnable task) {
        schedule(0, task);
    }

    /** A timer on {@code executor}. */
    static CmTimer of(ScheduledExecutorService executor) {
        return (delayMillis, task) -> {
            ScheduledFuture<?> f = executor.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
            return () -> f.cancel(false);
        };
    }
}
