package dev.ibex.rsocket;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.reactive.Message;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The receive side of an RSocket connection: subscribes to the connection's {@code receive()} at once (so nothing
 * that arrives before RSocket subscribes is lost: it waits as un-reposted receives) and is the {@code Flux<ByteBuf>}
 * RSocket reads frames from.
 *
 * <p><b>Demand is the receive credit.</b> cm-reactive re-posts a receive only when a message is released; each
 * message is copied into a buffer of RSocket's allocator (an {@link MessageFraming.Assembler}) and released at
 * once. So upstream demand is kept equal to RSocket's outstanding frame demand — each message yields at most one
 * frame, so nothing is assembled that RSocket did not ask for, and a split frame's remaining messages are asked for
 * as the frame needs them (demand stays positive until it completes). A subscriber without demand leaves messages
 * in the posted receive window, which stops the peer's sender (RNR) instead of growing memory; nothing here
 * buffers. RSocket 1.1 requests unbounded once set up (its flow control is request-n per stream), which makes the
 * credit follow the copying.
 *
 * <p>Like a Netty transport, each frame is released after {@code onNext} returns: RSocket retains what it keeps.
 * The first message is the peer's {@link Handshake} hello, handed to the {@code hello} callback instead.
 * Completes when the connection closes; fails with the connection's error or a {@link FramingException}.
 *
 * <p><b>Threading.</b> State is confined to the connection's loop; {@code subscribe}, {@code request} and
 * {@code cancel} from other threads hop onto it. Every signal is emitted on the loop.
 */
final class FrameReceiver extends Flux<ByteBuf> implements CoreSubscriber<Message>, Subscription {
    private final EventLoop loop;
    private final MessageFraming.Assembler assembler;
    private final Consumer<Message> hello;
    private final Consumer<Throwable> failed;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    // loop-confined
    private Subscription upstream;
    private long pending; // messages requested upstream and not yet received
    private boolean helloSeen;
    private CoreSubscriber<? super ByteBuf> actual;
    private long demand;
    private boolean cancelled;
    private boolean done;
    private boolean terminated;
    private Throwable error;

    /**
     * @param hello takes the first message (loop thread); may throw {@link FramingException}
     * @param failed told when the connection fails or the peer's messages are malformed (loop thread)
     */
    FrameReceiver(EventLoop loop, MessageFraming.Assembler assembler, Consumer<Message> hello,
            Consumer<Throwable> failed) {
        this.loop = loop;
        this.assembler = assembler;
        this.hello = hello;
        this.failed = failed;
    }

    // ---- upstream: the connection's messages (loop thread) ----

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            pending = 1;
            s.request(1); // the hello
        }
    }

    @Override
    public void onNext(Message m) {
        if (pending != Long.MAX_VALUE) {
            pending--;
        }
        if (done || cancelled) {
            return; // released by the connection after onNext
        }
        if (!helloSeen) {
            helloSeen = true;
            try {
                hello.accept(m);
            } catch (RuntimeException e) {
                malformed(e);
                return;
            }
            refill();
            return;
        }
        ByteBuf frame;
        try {
            frame = assembler.accept(m.payload());
        } catch (FramingException e) {
            malformed(e);
            return;
        }
        if (frame != null) {
            if (demand != Long.MAX_VALUE) {
                demand--;
            }
            try {
                actual.onNext(frame);
            } catch (Throwable t) {
                upstream.cancel();
                terminate(Operators.onOperatorError(this, t, actual.currentContext()));
                return;
            } finally {
                frame.release();
            }
        }
        refill();
    }

    @Override
    public void onError(Throwable t) {
        if (!done) {
            done = true;
            error = t;
            assembler.release();
            failed.accept(t);
            terminateIfSubscribed();
        }
    }

    @Override
    public void onComplete() {
        if (!done) {
            done = true;
            assembler.release();
            terminateIfSubscribed();
        }
    }

    /** Asks upstream for as many messages as frames are wanted (and for the rest of a split frame). */
    private void refill() {
        if (done || cancelled || !helloSeen) {
            return;
        }
        if (demand == Long.MAX_VALUE) {
            if (pending != Long.MAX_VALUE) {
                pending = Long.MAX_VALUE;
                upstream.request(Long.MAX_VALUE);
            }
        } else if (pending < demand) {
            long n = demand - pending;
            pending = demand;
            upstream.request(n);
        }
    }

    private void malformed(RuntimeException e) {
        upstream.cancel();
        done = true;
        error = e;
        assembler.release();
        failed.accept(e);
        terminateIfSubscribed();
    }

    // ---- downstream: RSocket ----

    @Override
    public void subscribe(CoreSubscriber<? super ByteBuf> s) {
        if (!subscribed.compareAndSet(false, true)) {
            Operators.error(s, new IllegalStateException("a connection's frames allow one subscriber"));
            return;
        }
        // onSubscribe on the loop: a request made inside it must find the subscriber attached
        Runnable attach = () -> {
            actual = s;
            s.onSubscribe(this);
            if (cancelled) {
                return;
            }
            terminateIfSubscribed();
            refill();
        };
        if (loop.inEventLoop()) {
            attach.run();
            return;
        }
        try {
            loop.execute(attach);
        } catch (RejectedExecutionException gone) {
            Operators.error(s, new IllegalStateException("the connection's event loop has terminated", gone));
        }
    }

    @Override
    public void request(long n) {
        onLoop(() -> {
            if (n <= 0) {
                cancelNow();
                terminate(Exceptions.nullOrNegativeRequestException(n));
                return;
            }
            demand = Operators.addCap(demand, n);
            refill();
        });
    }

    @Override
    public void cancel() {
        onLoop(this::cancelNow);
    }

    private void cancelNow() {
        if (!cancelled) {
            cancelled = true;
            assembler.release();
            if (upstream != null) {
                upstream.cancel();
            }
        }
    }

    private void terminateIfSubscribed() {
        if (done && actual != null && !terminated && !cancelled) {
            terminate(error);
        }
    }

    private void terminate(Throwable t) {
        if (terminated || actual == null) {
            return;
        }
        terminated = true;
        done = true;
        if (t != null) {
            actual.onError(t);
        } else {
            actual.onComplete();
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
            // the loop ended with its connection: receive() already terminated or never will deliver again
        }
    }
}
