package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.loop.EventLoop;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * {@code send(Publisher)}: a {@link Mono} that subscribes to the payloads and posts each as one SEND. It asks
 * upstream only for what the send queue can take right now ({@link Outbound} grants slots, at most
 * {@value #PREFETCH} ahead per operation), so a fast publisher waits on the RDMA send queue instead of filling
 * memory. Completes when upstream completed and every posted SEND has completed; fails on the first failed SEND
 * (cancelling upstream), on an upstream error, or when the connection closes. Cancelling it cancels upstream;
 * SENDs already posted keep their buffers until the hardware is done with them. The subscriber's {@link Context}
 * is visible upstream, with a discard hook added: a {@link Message} or {@link ReleasablePayload} that upstream drops
 * before emitting it (a cancelled {@code Mono.just}, a filter) is released, since sending takes ownership of it.
 */
final class SendOperation extends Mono<Void> {
    static final int PREFETCH = 32;

    private final SendTarget target;
    private final Publisher<?> source;

    SendOperation(SendTarget target, Publisher<?> source) {
        this.target = target;
        this.source = source;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Void> actual) {
        Sender s = new Sender(actual, target);
        actual.onSubscribe(s);
        Flux.from(source).doOnDiscard(Object.class, Payloads::release).subscribe(s);
    }

    private static final class Sender extends Outbound.SlotUser implements CoreSubscriber<Object>, Subscription,
            Outbound.Op {
        private static final Object COMPLETE = new Object();

        private final CoreSubscriber<? super Void> actual;
        private final SendTarget target;
        private final EventLoop loop;
        private final Outbound outbound;
        private volatile Subscription upstream;
        private volatile boolean cancelled;
        // signals that arrive off the loop wait here, in order, for the loop
        private final Queue<Object> handoff = new ConcurrentLinkedQueue<>();
        private final AtomicInteger handoffWip = new AtomicInteger();
        private final Runnable drainTask = this::drainHandoff;
        // loop-confined
        private int id;
        private int granted;
        private int inFlight;
        /** Items waiting for a free buffer (at most the grant), in order; and whether the pool will wake us. */
        private final java.util.ArrayDeque<Object> stalled = new java.util.ArrayDeque<>();
        private boolean waitingForBuffer;
        private boolean upstreamDone;
        private boolean terminated;

        Sender(CoreSubscriber<? super Void> actual, SendTarget target) {
            this.actual = actual;
            this.target = target;
            this.loop = target.loop();
            this.outbound = target.outbound();
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        // ---- upstream ----

        @Override
        public void onSubscribe(Subscription s) {
            if (!Operators.validate(upstream, s)) {
                return;
            }
            upstream = s;
            onLoop(() -> {
                if (cancelled) {
                    s.cancel();
                    return;
                }
                id = outbound.register(this);
                outbound.await(this);
            });
        }

        @Override
        public void onNext(Object item) {
            if (loop.inEventLoop() && handoff.isEmpty()) {
                post(item);
            } else {
                handoff.offer(item);
                scheduleHandoff();
            }
        }

        @Override
        public void onError(Throwable t) {
            handoff.offer(new Failure(t));
            if (loop.inEventLoop()) {
                drainHandoff();
            } else {
                scheduleHandoff();
            }
        }

        @Override
        public void onComplete() {
            handoff.offer(COMPLETE);
            if (loop.inEventLoop()) {
                drainHandoff();
            } else {
                scheduleHandoff();
            }
        }

        private record Failure(Throwable error) {}

        private void scheduleHandoff() {
            if (handoffWip.getAndIncrement() == 0) {
                try {
                    loop.execute(drainTask);
                } catch (RejectedExecutionException gone) {
                    handoffWip.set(0);
                    Object o;
                    while ((o = handoff.poll()) != null) {
                        if (o != COMPLETE && !(o instanceof Failure)) {
                            Payloads.discard(o, actual.currentContext());
                        }
                    }
                    actual.onError(new IllegalStateException("the event loop has terminated", gone));
                }
            }
        }

        private void drainHandoff() {
            handoffWip.set(0);
            Object o;
            while ((o = handoff.poll()) != null) {
                if (o == COMPLETE) {
                    upstreamDone = true;
                    returnGrant();
                    maybeComplete();
                } else if (o instanceof Failure f) {
                    upstreamDone = true;
                    returnGrant();
                    fail(f.error(), false);
                } else {
                    post(o);
                }
            }
        }

        private void post(Object item) {
            if (terminated || cancelled) {
                Payloads.discard(item, actual.currentContext());
                return;
            }
            if (!stalled.isEmpty() || !bufferFree(item)) {
                stalled.add(item); // the pool is exhausted: wait for a buffer, in order
                return;
            }
            postNow(item);
        }

        private boolean bufferFree(Object item) {
            if (waitingForBuffer) {
                return false;
            }
            if (target.bufferAvailable(item, this::buffersFreed)) {
                return true;
            }
            waitingForBuffer = true;
            return false;
        }

        /** The pool has buffers again: post what waited (loop thread). */
        private void buffersFreed() {
            waitingForBuffer = false;
            while (!stalled.isEmpty() && !terminated && !cancelled) {
                if (!bufferFree(stalled.peek())) {
                    return;
                }
                postNow(stalled.poll());
            }
            maybeComplete();
        }

        private void postNow(Object item) {
            if (granted <= 0) {
                Payloads.discard(item, actual.currentContext());
                fail(Exceptions.failWithOverflow("the publisher sent more than send() requested"), true);
                return;
            }
            granted--;
            outbound.consume();
            try {
                target.post(item, Outbound.attachment(id, 0));
            } catch (RuntimeException e) {
                fail(e, true);
                return;
            }
            inFlight++;
            if (granted < PREFETCH / 2) {
                outbound.await(this);
            }
        }

        // ---- slots ----

        @Override
        int wantedSlots() {
            return terminated || cancelled || upstreamDone ? 0 : Math.max(0, PREFETCH - granted);
        }

        @Override
        void granted(int n) {
            if (terminated || cancelled || upstreamDone) {
                outbound.giveBack(n);
                return;
            }
            granted += n;
            upstream.request(n);
        }

        @Override
        void closed(Throwable cause) {
            fail(cause, true);
        }

        // ---- completions ----

        @Override
        public void completed(int tag) {
            inFlight--;
            maybeComplete();
            maybeUnregister();
        }

        @Override
        public void failed(int tag, RdmaException error) {
            inFlight--;
            fail(error, true);
            maybeUnregister();
        }

        private void maybeComplete() {
            if (upstreamDone && inFlight == 0 && stalled.isEmpty() && !terminated && !cancelled) {
                terminated = true;
                actual.onComplete();
                maybeUnregister();
            }
        }

        private void fail(Throwable e, boolean cancelUpstream) {
            if (terminated || cancelled) {
                return;
            }
            terminated = true;
            if (cancelUpstream && !upstreamDone) {
                Subscription u = upstream;
                if (u != null) {
                    u.cancel();
                }
            }
            discardHandoff();
            returnGrant();
            outbound.withdraw(this);
            actual.onError(e);
            maybeUnregister();
        }

        /** Gives back the slots granted and not used, but those of items still waiting for buffers. */
        private void returnGrant() {
            int keep = Math.min(granted, stalled.size());
            int g = granted - keep;
            granted = keep;
            outbound.giveBack(g);
        }

        private void maybeUnregister() {
            if ((terminated || cancelled) && inFlight == 0 && id > 0) {
                outbound.unregister(id);
                id = 0;
            }
        }

        private void discardHandoff() {
            Object o;
            while ((o = stalled.poll()) != null) {
                Payloads.discard(o, actual.currentContext());
            }
            while ((o = handoff.poll()) != null) {
                if (o != COMPLETE && !(o instanceof Failure)) {
                    Payloads.discard(o, actual.currentContext());
                }
            }
        }

        // ---- downstream ----

        @Override
        public void request(long n) {
            // a Mono<Void>: demand changes nothing
        }

        @Override
        public void cancel() {
            if (cancelled) {
                return;
            }
            cancelled = true;
            Subscription u = upstream;
            if (u != null) {
                u.cancel();
            }
            onLoop(() -> {
                discardHandoff();
                returnGrant();
                outbound.withdraw(this);
                maybeUnregister();
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
                if (!cancelled) {
                    actual.onError(new IllegalStateException("the event loop has terminated", gone));
                }
            }
        }
    }
}
