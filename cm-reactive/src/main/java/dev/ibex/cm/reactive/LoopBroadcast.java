package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A hot, multicast stream of events produced on one loop: each subscriber sees the events emitted after it
 * subscribed that pass its filter, through its own bounded {@link LoopQueue} (a slow subscriber overflows alone and
 * never holds up the producer or the others). {@link #complete()} ends every subscriber and every later one.
 *
 * <p>Threading: {@link #emit} and {@link #complete} on the loop; subscribing from any thread.
 */
final class LoopBroadcast<T> {
    private final EventLoop loop;
    private final String stream;
    private final int capacity;
    private final List<LoopQueue<T>> subscribers = new ArrayList<>();
    private boolean completed;

    LoopBroadcast(EventLoop loop, String stream, int capacity) {
        this.loop = loop;
        this.stream = stream;
        this.capacity = capacity;
    }

    /** Loop thread. */
    void emit(T e) {
        if (completed) {
            return;
        }
        for (Object s : subscribers.toArray()) {
            @SuppressWarnings("unchecked")
            LoopQueue<T> q = (LoopQueue<T>) s;
            q.offer(e);
        }
    }

    /** Loop thread: completes every subscriber (after what they have queued) and every later one. */
    void complete() {
        if (completed) {
            return;
        }
        completed = true;
        for (Object s : subscribers.toArray()) {
            ((LoopQueue<?>) s).complete();
        }
        subscribers.clear();
    }

    /** The events that pass {@code filter}, as a Flux; {@code name} names it in overflow errors. */
    Flux<T> flux(Predicate<? super T> filter, String name) {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super T> actual) {
                LoopQueue<T>[] self = newArray();
                LoopQueue<T> q = new LoopQueue<>(loop, actual, filter, name, capacity, () -> subscribers.remove(self[0]));
                self[0] = q;
                actual.onSubscribe(q);
                try {
                    loop.run(() -> attach(q));
                } catch (RejectedExecutionException gone) {
                    actual.onComplete(); // the loop ended, so did its events
                }
            }
        };
    }

    Flux<T> flux() {
        return flux(e -> true, stream);
    }

    String stream() {
        return stream;
    }

    private void attach(LoopQueue<T> q) {
        if (q.isTerminated()) {
            return;
        }
        if (completed) {
            q.complete();
        } else {
            subscribers.add(q);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> LoopQueue<T>[] newArray() {
        return (LoopQueue<T>[]) new LoopQueue<?>[1];
    }
}
