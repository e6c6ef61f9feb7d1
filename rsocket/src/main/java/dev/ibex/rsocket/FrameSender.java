package dev.ibex.rsocket;

import dev.ibex.cm.loop.EventLoop;
import io.netty.buffer.ByteBuf;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

/**
 * The send side of an RSocket connection: the one publisher a connection's {@code RdmaConnection.send(...)}
 * subscribes to for its whole life. RSocket's {@code sendFrame} has no flow control (it may be called from any
 * thread at any time), so frames wait here; they leave only as the send operation requests, and it requests only
 * the send-queue slots it was granted — the RDMA send queue is never overrun and each emitted message is posted at
 * once. What waits is what RSocket's own request-n let the application produce, as frames wait in Netty's outbound
 * buffer under RSocket over TCP.
 *
 * <p>Emits the {@link Handshake} hello first, then — once {@link #start} gave the framing — each frame as
 * {@link MessageFraming#messagesFor} chunks in a row. Stream 0 frames (keepalive, lease, errors) overtake queued
 * stream frames, as in RSocket's own sender, but never split a frame. {@link #sendLast} queues a final frame
 * after which the publisher completes; {@link #close} releases everything still queued.
 *
 * <p><b>Threading.</b> {@link #send}, {@link #sendLast} and {@link #close} from any thread; emission and every other
 * piece of state on the connection's loop.
 */
final class FrameSender extends Flux<Object> implements Subscription {
    private final EventLoop loop;
    private final Queue<ByteBuf> urgent = new ConcurrentLinkedQueue<>();
    private final Queue<ByteBuf> normal = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final Runnable drainTask = () -> {
        scheduled.set(false);
        drain();
    };
    private volatile boolean closed;
    private final AtomicReference<ByteBuf> last = new AtomicReference<>();
    // claimed once: RSocket may send its final frame from two threads at once (requester and responder disposing)
    private final AtomicBoolean lastQueued = new AtomicBoolean();
    // loop-confined
    private CoreSubscriber<? super Object> actual;
    private byte[] hello;
    private MessageFraming framing;
    private long demand;
    private ByteBuf current;
    private int currentIndex;
    private int currentCount;
    private boolean lastTaken;
    private boolean completed;
    private boolean draining;

    FrameSender(EventLoop loop, byte[] hello) {
        this.loop = loop;
        this.hello = hello;
    }

    // ---- RSocket side (any thread) ----

    /**
     * Queues {@code frame} (ownership passes here); released at once when the connection is closing.
     *
     * @throws IllegalArgumentException (the frame released) beyond RSocket's maximum frame length, which RSocket
     *     itself checks first; a larger frame cannot be announced in 24 bits
     */
    void send(int streamId, ByteBuf frame) {
        if (closed || lastQueued.get()) {
            frame.release();
            return;
        }
        int length = frame.readableBytes();
        if (length > MessageFraming.MAX_FRAME) {
            frame.release();
            throw new IllegalArgumentException("a frame of " + length + " bytes exceeds RSocket's maximum of "
                    + MessageFraming.MAX_FRAME + " (fragment it: RSocketConnector/RSocketServer.fragment(mtu))");
        }
        (streamId == 0 ? urgent : normal).offer(frame);
        if (closed) {
            releaseQueued(); // raced with close: whoever polls last releases
        }
        schedule();
    }

    /** Queues a final frame: sent after what is queued, then the publisher completes. Later frames are released. */
    void sendLast(ByteBuf frame) {
        if (closed || !lastQueued.compareAndSet(false, true)) {
            frame.release(); // only the first final frame is sent
            return;
        }
        last.set(frame);
        if (closed) {
            releaseQueued();
        }
        schedule();
    }

    /** Sends the frames from now on, split by {@code f} (the hello exchange is done). Loop thread. */
    void start(MessageFraming f) {
        framing = f;
        drain();
    }

    /** Whether a final frame was queued. */
    boolean isClosing() {
        return lastQueued.get();
    }

    /** The connection is gone: releases what is queued and every later frame. Any thread. */
    void close() {
        closed = true;
        if (loop.inEventLoop()) {
            releaseAll();
        } else {
            try {
                loop.execute(this::releaseAll);
            } catch (RejectedExecutionException gone) {
                releaseQueued(); // the loop ended: nobody else polls
            }
        }
    }

    private void schedule() {
        if (loop.inEventLoop()) {
            drain();
        } else if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(drainTask);
            } catch (RejectedExecutionException gone) {
                closed = true;
                releaseQueued();
            }
        }
    }

    // ---- the send operation's side (loop thread) ----

    @Override
    public void subscribe(CoreSubscriber<? super Object> s) {
        if (!subscribed.compareAndSet(false, true)) {
            Operators.error(s, new IllegalStateException("a connection's frames have one sender"));
            return;
        }
        actual = s;
        s.onSubscribe(this);
    }

    @Override
    public void request(long n) {
        if (!loop.inEventLoop()) {
            loop.execute(() -> request(n));
            return;
        }
        if (n > 0) {
            demand = Operators.addCap(demand, n);
            drain();
        }
    }

    @Override
    public void cancel() {
        close();
    }

    private void drain() {
        if (draining || actual == null) {
            return;
        }
        draining = true;
        try {
            if (closed) {
                releaseAll();
                return;
            }
            while (demand > 0) {
                Object next = nextMessage();
                if (next == null) {
                    break;
                }
                demand--;
                actual.onNext(next);
                if (closed) {
                    releaseAll();
                    return;
                }
            }
            if (lastTaken && current == null && !completed) {
                completed = true;
                actual.onComplete();
            }
        } finally {
            draining = false;
        }
    }

    /** The next message to post, or {@code null} when there is none yet. */
    private Object nextMessage() {
        if (hello != null) {
            byte[] h = hello;
            hello = null;
            return h;
        }
        if (framing == null || lastTaken) {
            return null;
        }
        if (current == null) {
            ByteBuf f = urgent.poll();
            if (f == null) {
                f = normal.poll();
            }
            if (f == null && lastQueued.get()) {
                f = last.getAndSet(null); // null while sendLast is between its claim and its set: it drains again
                lastTaken = f != null;
            }
            if (f == null) {
                return null;
            }
            current = f;
            currentIndex = 0;
            currentCount = framing.messagesFor(f.readableBytes());
            if (currentCount > 1) {
                f.retain(currentCount - 1); // one reference per chunk; each chunk releases its own
            }
        }
        MessageFraming.Chunk c = framing.chunk(current, currentIndex++);
        if (currentIndex == currentCount) {
            current = null;
        }
        return c;
    }

    private void releaseAll() {
        ByteBuf c = current;
        if (c != null) {
            current = null;
            c.release(currentCount - currentIndex); // the references of chunks never emitted
        }
        hello = null;
        completed = true; // the send operation ends with the connection; nothing more is emitted
        releaseQueued();
    }

    private void releaseQueued() {
        ByteBuf f;
        while ((f = urgent.poll()) != null) {
            f.release();
        }
        while ((f = normal.poll()) != null) {
            f.release();
        }
        ByteBuf l = last.getAndSet(null);
        if (l != null) {
            l.release();
        }
    }
}
