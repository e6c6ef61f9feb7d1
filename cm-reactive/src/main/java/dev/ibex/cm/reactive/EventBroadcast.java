package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A connection's {@link ConnectionEvent}s as a hot, multicast {@link Flux} emitted on the connection's loop. Each
 * subscriber first gets the lifecycle so far (ESTABLISHED, then DISCONNECTED/ERROR/CLOSED if they happened; at
 * most four events, kept for late subscribers), then live events; it completes after CLOSED. Each subscriber has
 * its own queue for events it has not requested yet, capped at {@value #CAP} (overflowing it is an error for that
 * subscriber only): events are rare, but a subscriber that never requests must not grow memory.
 */
final class EventBroadcast extends Flux<ConnectionEvent> {
    static final int CAP = 64;

    private final EventLoop loop;
    private final List<ConnectionEvent> lifecycle = new ArrayList<>(4);
    private final List<Sub> subscribers = new ArrayList<>();
    private boolean completed;

    EventBroadcast(EventLoop loop) {
        this.loop = loop;
    }

    /** Loop thread. */
    void emit(ConnectionEvent e) {
        if (completed) {
            return;
        }
        if (e.type().isLifecycle()) {
            lifecycle.add(e);
        }
        for (Sub s : subscribers.toArray(new Sub[0])) {
            s.offer(e);
        }
    }

    /** After CLOSED (loop thread). */
    void finish() {
        if (completed) {
            return;
        }
        completed = true;
        for (Sub s : subscribers.toArray(new Sub[0])) {
            s.complete();
        }
        subscribers.clear();
    }

    @Override
    public void subscribe(CoreSubscriber<? super ConnectionEvent> actual) {
        Sub s = new Sub(actual);
        actual.onSubscribe(s);
        try {
            loop.run(() -> attach(s));
        } catch (RejectedExecutionException gone) {
            actual.onComplete(); // the loop ended, so did the connection
        }
    }

    private void attach(Sub s) {
        if (s.cancelled) {
            return;
        }
        for (ConnectionEvent e : lifecycle) {
            s.offer(e);
        }
        if (completed) {
            s.complete();
        } else {
            subscribers.add(s);
        }
    }

    private final class Sub implements Subscription {
        private final CoreSubscriber<? super ConnectionEvent> actual;
        private final ArrayDeque<ConnectionEvent> queue = new ArrayDeque<>();
        private volatile boolean cancelled;
        private long demand;
        private boolean done;
        private boolean terminated;
        private boolean draining;

        Sub(CoreSubscriber<? super ConnectionEvent> actual) {
            this.actual = actual;
        }

        void offer(ConnectionEvent e) {
            if (terminated || done) {
                return;
            }
            if (queue.size() == CAP) {
                terminated = true;
                subscribers.remove(this);
                queue.clear();
                actual.onError(Exceptions.failWithOverflow("more than " + CAP + " connection events were not "
                        + "requested"));
                return;
            }
            queue.add(e);
            drain();
        }

        void complete() {
            done = true;
            drain();
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                onLoop(() -> {
                    if (!terminated) {
                        terminated = true;
                        subscribers.remove(this);
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
                terminated = true;
                queue.clear();
                subscribers.remove(this);
            });
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
                        ConnectionEvent e = queue.poll();
                        try {
                            actual.onNext(e);
                        } catch (Throwable t) { // a subscriber that throws ends alone, the others go on
                            terminated = true;
                            queue.clear();
                            subscribers.remove(this);
                            actual.onError(Operators.onOperatorError(this, t, e, actual.currentContext()));
                            return;
                        }
                    } else if (done && queue.isEmpty()) {
                        terminated = true;
                        actual.onComplete();
                    } else {
                        return;
                    }
                }
            } finally {
                draining = false;
            }
        }

        void onLoop(Runnable r) {
            if (loop.inEventLoop()) {
                r.run();
                return;
            }
            try {
                loop.execute(r);
            } catch (RejectedExecutionException gone) {
                // the connection's loop is gone: nothing more will be emitted
            }
        }
    }
}
