package dev.ibex.cm.reactive;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.loop.EventLoop;
import java.util.concurrent.RejectedExecutionException;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * One work request as a {@link Mono} (RDMA WRITE, READ, atomics, binding an exposure): on subscription it waits for
 * a send-queue slot
 * (FIFO with the endpoint's other operations), posts, and signals the result on the endpoint's loop when the work
 * completes. Cancelling before the post withdraws it; cancelling after the post lets the work finish in the
 * hardware (its buffer stays lent until the completion or flush arrives) and then drops the result (an exposure is
 * revoked).
 */
final class OneShotOperation<T> extends Mono<T> {

    /** What the operation does (loop thread). */
    interface Action<T> {
        /**
         * Posts the work request with {@code attachment} into a reserved slot.
         *
         * @return the buffer the completion fills (READ, atomics), or {@code null}
         */
        Buffer post(long attachment);

        /** The work completed: the result ({@code null} for none) built from {@code buffer}. */
        T result(Buffer buffer);

        /** The work completed after the subscriber cancelled: undo what it did (e.g. revoke an exposure). */
        default void abandoned() {}
    }

    private final SendTarget target;
    private final Action<T> action;

    OneShotOperation(SendTarget target, Action<T> action) {
        this.target = target;
        this.action = action;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        Shot<T> s = new Shot<>(actual, target, action);
        actual.onSubscribe(s);
        s.start();
    }

    private static final class Shot<T> extends Outbound.SlotUser implements Subscription, Outbound.Op {
        private final CoreSubscriber<? super T> actual;
        private final EventLoop loop;
        private final Outbound outbound;
        private final Action<T> action;
        private volatile boolean cancelled;
        // loop-confined
        private int id;
        private boolean posted;
        private boolean requested;
        private boolean done;
        private boolean terminated;
        private Buffer buffer;
        private T value;

        Shot(CoreSubscriber<? super T> actual, SendTarget target, Action<T> action) {
            this.actual = actual;
            this.loop = target.loop();
            this.outbound = target.outbound();
            this.action = action;
        }

        void start() {
            onLoop(() -> {
                if (cancelled) {
                    return;
                }
                id = outbound.register(this);
                outbound.await(this);
            });
        }

        @Override
        int wantedSlots() {
            return posted || cancelled || terminated ? 0 : 1;
        }

        @Override
        void granted(int n) {
            if (posted || cancelled || terminated) {
                outbound.giveBack(n);
                return;
            }
            posted = true;
            outbound.giveBack(n - 1);
            outbound.consume();
            try {
                buffer = action.post(Outbound.attachment(id, 0));
            } catch (RuntimeException e) {
                posted = false;
                fail(e);
                unregister();
            }
        }

        @Override
        void closed(Throwable cause) {
            fail(cause);
            unregister();
        }

        @Override
        public void completed(int tag) {
            Buffer b = buffer;
            buffer = null;
            unregister();
            if (cancelled || terminated) {
                if (b != null) {
                    b.release();
                }
                action.abandoned();
                return;
            }
            try {
                value = action.result(b);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            done = true;
            tryEmit();
        }

        @Override
        public void failed(int tag, RdmaException error) {
            Buffer b = buffer;
            buffer = null;
            if (b != null) {
                b.release(); // handed back by the flush or the error: nobody will read it
            }
            unregister();
            fail(error);
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                onLoop(() -> fail(Exceptions.nullOrNegativeRequestException(n)));
                return;
            }
            onLoop(() -> {
                requested = true;
                tryEmit();
            });
        }

        private void tryEmit() {
            if (!done || !requested || terminated || cancelled) {
                return;
            }
            terminated = true;
            T v = value;
            value = null;
            if (v != null) {
                actual.onNext(v);
                if (v instanceof Message m) {
                    m.afterDelivery();
                }
            }
            actual.onComplete();
        }

        private void fail(Throwable e) {
            if (terminated || cancelled) {
                return;
            }
            terminated = true;
            outbound.withdraw(this);
            actual.onError(e);
        }

        @Override
        public void cancel() {
            if (cancelled) {
                return;
            }
            cancelled = true;
            onLoop(() -> {
                if (!posted) {
                    outbound.withdraw(this);
                    unregister();
                }
                if (value instanceof Message m) {
                    m.release();
                } else if (value instanceof reactor.core.Disposable d) {
                    d.dispose(); // an exposure nobody will receive
                }
                value = null;
            });
        }

        private void unregister() {
            if (id > 0) {
                outbound.unregister(id);
                id = 0;
            }
        }

        private void onLoop(Runnable r) {
            if (loop.inEventLoop()) {
                r.run();
                return;
            }
            try {
                loop.execute(r);
            } catch (RejectedExecutionException gone) {
                if (!cancelled && !terminated) {
                    terminated = true;
                    actual.onError(new IllegalStateException("the event loop has terminated", gone));
                }
            }
        }
    }
}
