package dev.ibex.cm.reactive;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.loop.EventLoop;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The receive side of an endpoint as a unicast {@link Flux}: buffers the endpoint hands over wait in a queue until
 * the subscriber asks for them. Nothing here grows with the traffic: every queued buffer is a receive the endpoint
 * has not re-posted (it re-posts only on release), so the queue never exceeds the receive window and a subscriber
 * without demand stops the sender (RC: RNR; UD: the NIC drops). Each element is released after its {@code onNext}
 * unless retained ({@link Message}'s rule); queued buffers are released on cancel.
 *
 * <p>With a {@code limit} (datagrams), at most that many buffers wait for demand; a buffer that finds no demand and
 * a full queue, or arrives after cancel/termination, is released at once and counted in {@link #dropped()}. That
 * keeps the rest of the receive window posted, so a slow subscriber loses datagrams here, where they are counted,
 * rather than silently in the NIC.
 *
 * <p>State is confined to the endpoint's loop; {@code request}/{@code cancel} from other threads hop onto it.
 * Every signal is emitted on the loop.
 */
final class Inbound<T> extends Flux<T> implements Subscription {

    /** How a buffer becomes an element and what happens after its delivery. */
    interface Framing<T> {
        T open(Buffer buffer);

        /** A message of several buffers (connections only). */
        default T open(BufferList message) {
            throw new IllegalStateException("this endpoint receives no message of several buffers");
        }

        void afterDelivery(T element);

        /** Called for each delivered element (metrics); loop thread. */
        default void delivered(T element) {}
    }

    private final EventLoop loop;
    private final Framing<T> framing;
    private final String what;
    private final int limit;
    /** Each a {@link Buffer} or a {@link BufferList}. */
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    private volatile long dropped; // written on the loop only
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private CoreSubscriber<? super T> actual;
    private long demand;
    private volatile boolean cancelled;
    private boolean done;
    private boolean terminated;
    private boolean draining;
    private Throwable error;

    Inbound(EventLoop loop, Framing<T> framing, String what) {
        this(loop, framing, what, Integer.MAX_VALUE);
    }

    /** @param limit how many buffers may wait for demand before arrivals are dropped (and counted) */
    Inbound(EventLoop loop, Framing<T> framing, String what, int limit) {
        this.loop = loop;
        this.framing = framing;
        this.what = what;
        this.limit = limit;
    }

    // ---- endpoint side (loop thread) ----

    /** A received buffer, held by the application side from now on. */
    void offer(BufferList b) {
        offerMessage(b);
    }

    void offer(Buffer b) {
        offerMessage(b);
    }

    private void offerMessage(Object b) {
        if (cancelled || terminated || done || (queue.size() >= limit && (actual == null || demand == 0))) {
            drop(b);
            return;
        }
        queue.add(b);
        drain();
    }

    /** No more buffers will come; queued ones are still delivered, then onComplete. */
    void finish() {
        if (!done) {
            done = true;
            drain();
        }
    }

    /** No more buffers will come; queued ones are still delivered, then onError. */
    void fail(Throwable t) {
        if (!done) {
            done = true;
            error = t;
            drain();
        }
    }

    /** Ends for good without a subscriber ever coming: releases what waits (the endpoint is gone). */
    void closeUnsubscribed() {
        if (actual == null && !subscribed.get()) {
            done = true;
            discardQueue();
        }
    }

    /** Buffers waiting for demand (loop thread). */
    int queued() {
        return queue.size();
    }

    /** Buffers released without delivery: no demand and a full queue, or after cancel/termination. Any thread. */
    long dropped() {
        return dropped;
    }

    /** Outstanding demand (loop thread). */
    long demand() {
        return demand;
    }

    // ---- subscriber side ----

    @Override
    public void subscribe(CoreSubscriber<? super T> s) {
        if (!subscribed.compareAndSet(false, true)) {
            Operators.error(s, new IllegalStateException(what + " allows only one subscriber"));
            return;
        }
        s.onSubscribe(this);
        onLoop(() -> {
            actual = s;
            if (cancelled) {
                discardQueue();
            } else {
                drain();
            }
        });
    }

    @Override
    public void request(long n) {
        if (loop.inEventLoop()) {
            addDemand(n);
        } else {
            onLoop(() -> addDemand(n));
        }
    }

    private void addDemand(long n) {
        if (n <= 0) {
            if (!terminated && actual != null) {
                cancelled = true;
                discardQueue();
                terminated = true;
                actual.onError(Exceptions.nullOrNegativeRequestException(n));
            }
            return;
        }
        demand = Operators.addCap(demand, n);
        drain();
    }

    @Override
    public void cancel() {
        if (!cancelled) {
            cancelled = true;
            onLoop(this::discardQueue);
        }
    }

    private void drain() {
        if (draining || actual == null) {
            return;
        }
        draining = true;
        try {
            while (true) {
                if (cancelled) {
                    discardQueue();
                    return;
                }
                if (demand > 0 && !queue.isEmpty()) {
                    if (demand != Long.MAX_VALUE) {
                        demand--;
                    }
                    Object next = queue.poll();
                    T element = next instanceof Buffer b ? framing.open(b) : framing.open((BufferList) next);
                    framing.delivered(element);
                    try {
                        actual.onNext(element);
                    } catch (Throwable t) {
                        framing.afterDelivery(element);
                        cancelled = true;
                        discardQueue();
                        terminated = true;
                        actual.onError(Operators.onOperatorError(this, t, element, actual.currentContext()));
                        return;
                    }
                    framing.afterDelivery(element);
                    continue;
                }
                if (done && queue.isEmpty() && !terminated) {
                    terminated = true;
                    if (error != null) {
                        actual.onError(error);
                    } else {
                        actual.onComplete();
                    }
                }
                return;
            }
        } finally {
            draining = false;
        }
    }

    private void discardQueue() {
        Object b;
        while ((b = queue.poll()) != null) {
            drop(b);
        }
    }

    private void drop(Object b) {
        dropped++;
        if (b instanceof Buffer buffer) {
            buffer.release();
        } else {
            ((BufferList) b).release();
        }
    }

    private void onLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
            return;
        }
        try {
            loop.execute(r);
        } catch (RejectedExecutionException terminatedLoop) {
            // the loop is gone and its pool with it: nothing is left to deliver or release
        }
    }
}
