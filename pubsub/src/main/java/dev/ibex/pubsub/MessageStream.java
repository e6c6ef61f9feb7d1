package dev.ibex.pubsub;

import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A subscriber's messages as a {@link Flux} that outlives its memberships: one subscriber at a time (another may
 * subscribe once the previous one cancelled), messages delivered straight from the group's receive while there is
 * demand, else held in a bounded queue; a message that finds no demand and a full queue is released at once and
 * counted ({@link #overruns()}) — a slow consumer loses messages here, counted, while sequence accounting (done
 * before) stays exact. Each message is released after its {@code onNext} unless retained; queued ones wait (bounded)
 * for the next subscriber, and are released when the subscriber closes with nobody to take them. Completes, after
 * the queue, when the subscriber closes.
 *
 * <p>State is confined to the subscriber's loop; {@code request}/{@code cancel} from other threads hop onto it.
 */
final class MessageStream extends Flux<TopicMessage> {
    private final EventLoop loop;
    private final int limit;
    private final ArrayDeque<TopicMessage> queue = new ArrayDeque<>();
    private volatile long overruns;
    private Downstream current; // loop-confined
    private boolean done;

    MessageStream(EventLoop loop, int limit) {
        this.loop = loop;
        this.limit = limit;
    }

    /** Messages released without delivery: no demand and a full queue (or discarded at close). Any thread. */
    long overruns() {
        return overruns;
    }

    /**
     * A message from the group, during the group's {@code onNext} (loop thread): delivered now, queued (held past
     * that {@code onNext}), or counted as an overrun.
     */
    void offer(TopicMessage m) {
        Downstream d = current;
        if (d != null && d.demand > 0 && queue.isEmpty() && !done) {
            d.deliver(m);
            return;
        }
        if (done || queue.size() >= limit) {
            overruns++;
            return; // not held: released when the group's onNext returns
        }
        queue.add(m.hold());
        if (d != null) {
            d.drain();
        }
    }

    /** No more messages: the subscriber delivers what waits, then completes. Loop thread. */
    void finish() {
        done = true;
        if (current != null) {
            current.drain();
        } else {
            discard();
        }
    }

    private void discard() {
        TopicMessage m;
        while ((m = queue.poll()) != null) {
            overruns++;
            m.release();
        }
    }

    @Override
    public void subscribe(CoreSubscriber<? super TopicMessage> actual) {
        Downstream d = new Downstream(actual);
        actual.onSubscribe(d);
        onLoop(() -> {
            if (current != null) {
                d.terminated = true;
                actual.onError(new IllegalStateException("messages() has a subscriber already: one at a time"));
                return;
            }
            if (!d.cancelled) {
                current = d;
                d.drain();
            }
        });
    }

    private void onLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
            return;
        }
        try {
            loop.execute(r);
        } catch (RejectedExecutionException gone) {
            // the loop and its buffers are gone
        }
    }

    /** One subscription. */
    private final class Downstream implements Subscription {
        private final CoreSubscriber<? super TopicMessage> actual;
        private long demand;
        private volatile boolean cancelled;
        private boolean terminated;
        private boolean draining;

        Downstream(CoreSubscriber<? super TopicMessage> actual) {
            this.actual = actual;
        }

        @Override
        public void request(long n) {
            onLoop(() -> {
                if (terminated || cancelled) {
                    return;
                }
                if (n <= 0) {
                    cancelLocally();
                    terminated = true;
                    actual.onError(Exceptions.nullOrNegativeRequestException(n));
                    return;
                }
                demand = Operators.addCap(demand, n);
                drain();
            });
        }

        @Override
        public void cancel() {
            cancelled = true;
            onLoop(this::cancelLocally);
        }

        private void cancelLocally() {
            if (current == this) {
                current = null;
                if (done) {
                    discard();
                }
            }
        }

        void deliver(TopicMessage m) {
            if (demand != Long.MAX_VALUE) {
                demand--;
            }
            try {
                actual.onNext(m);
            } catch (Throwable t) {
                m.afterDelivery();
                cancelLocally();
                terminated = true;
                actual.onError(Operators.onOperatorError(this, t, m, actual.currentContext()));
                return;
            }
            m.afterDelivery();
        }

        void drain() {
            if (draining || current != this) {
                return;
            }
            draining = true;
            try {
                while (!cancelled && current == this) {
                    if (demand > 0 && !queue.isEmpty()) {
                        deliver(queue.poll());
                        continue;
                    }
                    if (done && queue.isEmpty() && !terminated) {
                        terminated = true;
                        actual.onComplete();
                    }
                    return;
                }
            } finally {
                draining = false;
            }
        }
    }
}
