package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;

/**
 * One subscriber of an event stream: the events it has not requested yet, in a queue of at most {@code capacity}
 * (one more is an {@link EventOverflowException} for this subscriber alone), emitted on the loop as demand allows.
 * The producer never waits: {@link #offer} only appends. States: OPEN → (DONE: complete once drained) → TERMINATED;
 * OPEN → TERMINATED on overflow, error, a throwing subscriber or cancel.
 *
 * <p>Threading: {@link #offer}, {@link #complete}, {@link #error} and the drain run on the loop; {@code request} and
 * {@code cancel} may come from any thread and hop onto it.
 */
final class LoopQueue<T> implements Subscription {
    private final EventLoop loop;
    private final CoreSubscriber<? super T> actual;
    private final Predicate<? super T> filter;
    private final String stream;
    private final int capacity;
    private final Runnable onTerminate;
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private volatile boolean cancelled;
    private long demand;
    private boolean done;
    private Throwable error;
    private boolean terminated;
    private boolean draining;

    /**
     * @param onTerminate runs once on the loop when this subscriber ends for any reason (its producer forgets it)
     */
    LoopQueue(EventLoop loop, CoreSubscriber<? super T> actual, Predicate<? super T> filter, String stream,
            int capacity, Runnable onTerminate) {
        if (capacity < 1) {
            throw new IllegalArgumentException("an event buffer needs room for at least one event, got " + capacity);
        }
        this.loop = loop;
        this.actual = actual;
        this.filter = filter;
        this.stream = stream;
        this.capacity = capacity;
        this.onTerminate = onTerminate;
    }

    EventLoop loop() {
        return loop;
    }

    /** Loop thread: queues {@code e} if it passes the filter; never waits. */
    void offer(T e) {
        if (terminated || done || !filter.test(e)) {
            return;
        }
        if (queue.size() == capacity) {
            terminate();
            queue.clear();
            actual.onError(new EventOverflowException(stream, capacity));
            return;
        }
        queue.add(e);
        drain();
    }

    /** Loop thread: completes once the queued events are delivered. */
    void complete() {
        done = true;
        drain();
    }

    /** Loop thread: ends with {@code t} once the queued events are delivered. */
    void error(Throwable t) {
        if (!done) {
            done = true;
            error = t;
        }
        drain();
    }

    boolean isTerminated() {
        return terminated;
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            onLoop(() -> {
                if (!terminated) {
                    terminate();
                    actual.onError(Exceptions.nullOrNegativeRequestException(n));
                }
            });
            return;
        }
        onLoop(() -> {
            demand = Operators.addCap(demand, n);
            drain();
        });
    }

    @Override
    public void cancel() {
        cancelled = true;
        onLoop(() -> {
            queue.clear();
            terminate();
        });
    }

    private void terminate() {
        if (!terminated) {
            terminated = true;
            onTerminate.run();
        }
    }

    private void drain() {
        if (draining) {
            return;
        }
        draining = true;
        try {
            while (!terminated && !cancelled) {
                if (demand > 0 && !queue.isEmpty()) {
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                    T e = queue.poll();
                    try {
                        actual.onNext(e);
                    } catch (Throwable t) { // a subscriber that throws ends alone, the others go on
                        queue.clear();
                        terminate();
                        actual.onError(Operators.onOperatorError(this, t, e, actual.currentContext()));
                        return;
                    }
                } else if (done && queue.isEmpty()) {
                    terminate();
                    if (error != null) {
                        actual.onError(error);
                    } else {
                        actual.onComplete();
                    }
                } else {
                    return;
                }
            }
        } finally {
            draining = false;
        }
    }

    /** Runs {@code r} on the loop; when the loop is gone nothing more will be emitted. */
    void onLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
            return;
        }
        try {
            loop.execute(r);
        } catch (RejectedExecutionException gone) {
            // the loop ended: so did the stream
        }
    }
}
