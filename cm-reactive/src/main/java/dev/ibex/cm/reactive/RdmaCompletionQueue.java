package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import java.lang.foreign.Arena;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * A completion queue with a completion channel of its own, read by an event loop, for users who work at verbs level:
 * create QPs with {@link #cq()} and take their work completions from {@link #completions()} as
 * {@link RdmaCompletion} copies.
 *
 * <p><b>Demand drives the verbs.</b> The CQ is polled for at most what the subscriber requested (in batches of 1, 2,
 * 4 … 32, so nothing is taken from the CQ that is not delivered), armed ({@code ibv_req_notify_cq}) only when the
 * subscriber wants more than the CQ holds, and polled once more after arming (arm-then-poll: a completion that slipped
 * in before the arm is not left waiting for a notification that never comes). A subscriber without demand leaves
 * its completions in the CQ. Notifications ({@code ibv_get_cq_event}) are counted and acknowledged in batches of
 * {@code ackBatch} ({@code ibv_ack_cq_events}); cancelling acknowledges everything outstanding, and so does
 * {@link #close()}, before the CQ is destroyed.
 *
 * <table>
 *   <caption>The stream's states (loop-confined)</caption>
 *   <tr><th>state</th><th>on demand</th><th>on CQ event</th><th>on cancel</th></tr>
 *   <tr><td>IDLE (no subscriber or no demand)</td><td>POLLING</td><td>count it (ack per batch), stay</td>
 *       <td>ack all, IDLE</td></tr>
 *   <tr><td>POLLING</td><td>poll up to demand; CQ empty → arm, poll once more → ARMED (or go on); demand met →
 *       IDLE</td><td>—</td><td>ack all, IDLE</td></tr>
 *   <tr><td>ARMED</td><td>add it; stay ARMED</td><td>count it (ack per batch) → POLLING</td><td>ack all,
 *       IDLE (the arm stays; its event is counted and acked later)</td></tr>
 * </table>
 *
 * <p>One subscriber at a time (completions are consumed once); after a cancel another may subscribe and gets what
 * the CQ still holds. Close the QPs using {@link #cq()} before {@link #close()}.
 *
 * <p>Threading: every method may be called from any thread; completions are emitted on {@link #loop()}, which must
 * not be blocked.
 */
public final class RdmaCompletionQueue implements AutoCloseable {
    /** Notifications acknowledged at once. */
    public static final int DEFAULT_ACK_BATCH = 16;
    private static final int LARGEST_BATCH = 32;

    private final EventLoop loop;
    private final CompletionChannel channel;
    private final CompletionQueue cq;
    private final int ackBatch;
    private final Arena arena = Arena.ofShared();
    private final CompletionBatch[] batches = new CompletionBatch[Integer.numberOfTrailingZeros(LARGEST_BATCH) + 1];
    private final AtomicBoolean closing = new AtomicBoolean();
    // loop-confined
    private Sub sub;
    private boolean armed;
    private int unacked;
    private long eventsTaken;
    private boolean serving;
    private boolean closed;

    private RdmaCompletionQueue(EventLoop loop, CompletionChannel channel, CompletionQueue cq, int ackBatch) {
        this.loop = loop;
        this.channel = channel;
        this.cq = cq;
        this.ackBatch = ackBatch;
        for (int k = 0; k < batches.length; k++) {
            batches[k] = CompletionBatch.allocate(arena, 1 << k);
        }
    }

    /**
     * A CQ of at least {@code entries} on {@code device}, read by {@code loop}, acking per {@value #DEFAULT_ACK_BATCH}.
     *
     * @param loop    the loop that reads the completion channel and emits the completions
     * @param device  the device the CQ is created on (the one the QPs using it are on)
     * @param entries the CQ's capacity, at least 1 (the provider may round it up)
     * @return the open completion queue
     * @throws IllegalArgumentException when {@code entries} is below 1
     * @throws dev.ibex.cm.RdmaException when the provider cannot create the channel or the CQ
     */
    public static RdmaCompletionQueue open(EventLoop loop, DeviceContext device, int entries) {
        return open(loop, device, entries, DEFAULT_ACK_BATCH);
    }

    /**
     * A CQ of at least {@code entries} on {@code device}, read by {@code loop}, acknowledging notifications per
     * {@code ackBatch}.
     *
     * @param loop     the loop that reads the completion channel and emits the completions
     * @param device   the device the CQ is created on (the one the QPs using it are on)
     * @param entries  the CQ's capacity, at least 1 (the provider may round it up)
     * @param ackBatch notifications taken before they are acknowledged together (at least 1)
     * @return the open completion queue
     * @throws IllegalArgumentException when {@code entries} or {@code ackBatch} is below 1
     * @throws dev.ibex.cm.RdmaException when the provider cannot create the channel or the CQ
     */
    public static RdmaCompletionQueue open(EventLoop loop, DeviceContext device, int entries, int ackBatch) {
        if (entries < 1 || ackBatch < 1) {
            throw new IllegalArgumentException("entries and ackBatch must be at least 1, got " + entries + " and "
                    + ackBatch);
        }
        return LoopCall.call(loop, () -> {
            CompletionChannel ch = device.createCompletionChannel();
            CompletionQueue q;
            try {
                q = device.createCompletionQueue(entries, ch, 0);
            } catch (RuntimeException e) {
                ch.close();
                throw e;
            }
            RdmaCompletionQueue r = new RdmaCompletionQueue(loop, ch, q, ackBatch);
            try {
                loop.watch(ch, r::onReady);
            } catch (RuntimeException e) {
                q.close();
                ch.close();
                r.arena.close();
                throw e;
            }
            return r;
        });
    }

    /**
     * The CQ, for {@code QpInitAttr} (send and/or receive CQ of the user's QPs).
     *
     * @return the provider's CQ (close it only through {@link #close()})
     */
    public CompletionQueue cq() {
        return cq;
    }

    /**
     * The event loop that reads the CQ's channel and emits {@link #completions()}.
     *
     * @return the CQ's loop
     */
    public EventLoop loop() {
        return loop;
    }

    /**
     * The completions, one subscriber at a time; completes when the CQ is closed. A second concurrent subscriber gets
     * an {@link IllegalStateException}.
     *
     * @return the CQ's work completions, polled as the subscriber requests them
     */
    public Flux<RdmaCompletion> completions() {
        return new Flux<>() {
            @Override
            public void subscribe(CoreSubscriber<? super RdmaCompletion> actual) {
                Sub s = new Sub(actual);
                actual.onSubscribe(s);
                try {
                    loop.run(() -> attach(s));
                } catch (RejectedExecutionException gone) {
                    actual.onComplete(); // the loop ended
                }
            }
        };
    }

    private void attach(Sub s) {
        if (s.cancelled) {
            return;
        }
        if (closed) {
            s.done = true;
            s.actual.onComplete();
        } else if (sub != null) {
            s.done = true;
            s.actual.onError(new IllegalStateException("the completions of " + cq + " already have a subscriber"));
        } else {
            sub = s;
            serve();
        }
    }

    /** Loop: the channel is readable. */
    private void onReady() {
        takeEvents();
        if (unacked >= ackBatch) {
            ackAll();
        }
        serve();
    }

    private void takeEvents() {
        while (channel.poll() != null) {
            eventsTaken++;
            unacked++;
            armed = false; // a notification disarms the CQ
        }
    }

    private void ackAll() {
        if (unacked > 0) {
            cq.ackEvents(unacked);
            unacked = 0;
        }
    }

    /** Loop: poll for the demand, arm when it is not met. */
    private void serve() {
        if (serving) {
            return; // re-entered from onNext (a request): the outer call goes on
        }
        serving = true;
        try {
            boolean armedNow = false;
            while (sub != null && sub.demand > 0 && !closed) {
                CompletionBatch b = batchFor(sub.demand);
                int got;
                try {
                    got = cq.poll(b);
                } catch (RuntimeException e) {
                    Sub s = sub;
                    sub = null;
                    s.fail(e);
                    return;
                }
                if (got == 0) {
                    if (armed || armedNow) {
                        return; // the notification will bring us back
                    }
                    cq.requestNotify(false);
                    armed = true;
                    armedNow = true;
                    continue; // arm-then-poll
                }
                for (int i = 0; i < got && sub != null; i++) {
                    sub.next(RdmaCompletion.copy(b, i));
                }
            }
        } finally {
            serving = false;
        }
    }

    private CompletionBatch batchFor(long demand) {
        int k = demand >= LARGEST_BATCH ? batches.length - 1 : 31 - Integer.numberOfLeadingZeros((int) demand);
        return batches[k];
    }

    /** Loop: the subscriber went; its notifications are acknowledged now. */
    private void detach(Sub s) {
        if (sub == s) {
            sub = null;
            takeEvents();
            ackAll();
        }
    }

    /** Notifications taken and not yet acknowledged (loop; for tests). */
    int unacked() {
        return unacked;
    }

    /** Notifications taken so far (loop; for tests). */
    long eventsTaken() {
        return eventsTaken;
    }

    /**
     * Completes the subscriber, acknowledges every notification, stops watching the channel and destroys the CQ and
     * its channel. The QPs that use the CQ must be closed first. Idempotent; from any thread.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        Runnable close = () -> {
            closed = true;
            Sub s = sub;
            sub = null;
            if (s != null) {
                s.complete();
            }
            try {
                takeEvents();
                ackAll();
                loop.unwatch(channel);
            } finally {
                try {
                    cq.close();
                } finally {
                    channel.close();
                    arena.close();
                }
            }
        };
        if (loop.terminationFuture().isDone()) {
            close.run(); // the loop is gone (close is thread-safe in the SPI)
        } else {
            LoopCall.run(loop, close);
        }
    }

    @Override
    public String toString() {
        return "RdmaCompletionQueue[" + cq + " on " + loop + "]";
    }

    /** The subscriber's side: demand and terminal state. Loop-confined except request/cancel. */
    private final class Sub implements Subscription {
        final CoreSubscriber<? super RdmaCompletion> actual;
        volatile boolean cancelled;
        long demand;
        boolean done;

        Sub(CoreSubscriber<? super RdmaCompletion> actual) {
            this.actual = actual;
        }

        void next(RdmaCompletion c) {
            if (done || cancelled) {
                return;
            }
            if (demand != Long.MAX_VALUE) {
                demand--;
            }
            try {
                actual.onNext(c);
            } catch (Throwable t) {
                detach(this);
                fail(Operators.onOperatorError(this, t, c, actual.currentContext()));
            }
        }

        void fail(Throwable t) {
            if (!done) {
                done = true;
                actual.onError(t);
            }
        }

        void complete() {
            if (!done) {
                done = true;
                actual.onComplete();
            }
        }

        @Override
        public void request(long n) {
            onLoop(() -> {
                if (done || cancelled) {
                    return;
                }
                if (n <= 0) {
                    detach(this);
                    fail(Exceptions.nullOrNegativeRequestException(n));
                    return;
                }
                demand = Operators.addCap(demand, n);
                if (sub == this) {
                    serve();
                }
            });
        }

        @Override
        public void cancel() {
            cancelled = true;
            onLoop(() -> detach(this));
        }

        private void onLoop(Runnable r) {
            try {
                loop.run(r);
            } catch (RejectedExecutionException gone) {
                // the loop ended: nothing more is emitted
            }
        }
    }
}
