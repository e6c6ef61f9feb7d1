package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A call that must run on an event loop (the SPI's objects are confined to theirs), made from any thread: at once on
 * the loop, else queued to it and waited for (bounded). Failures are rethrown as they were.
 *
 * <p>Threading: any thread; off the loop it blocks until the loop ran the call (never use it from another loop).
 */
final class LoopCall {
    static final long WAIT_SECONDS = 30;

    private LoopCall() {}

    static <T> T call(EventLoop loop, Callable<T> action) {
        if (loop.inEventLoop()) {
            try {
                return action.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        CompletableFuture<T> f = loop.submit(action);
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + loop, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(loop + " did not run the call within " + WAIT_SECONDS + " s", e);
        }
    }

    static void run(EventLoop loop, Runnable action) {
        call(loop, () -> {
            action.run();
            return null;
        });
    }
}
