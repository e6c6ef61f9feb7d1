package dev.ibex.cm.buffer;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The way back for buffers released off the pool's owner thread: a lock-free stack linked through
 * {@link Buffer#nextReturned} (a Treiber stack: pushing allocates nothing), and one signal per drain that asks the
 * owner to take them ({@link BufferPool#drainReturns()}). {@link #push} from any thread; {@link #takeAll} on the
 * owner thread only.
 */
final class ReturnStack {
    private final AtomicReference<Buffer> head = new AtomicReference<>();
    private final AtomicBoolean signalPending = new AtomicBoolean();
    /** Run (from the releasing thread) when the first buffer since the last drain arrives; may be {@code null}. */
    private final Runnable releaseSignal;

    ReturnStack(Runnable releaseSignal) {
        this.releaseSignal = releaseSignal;
    }

    /** Pushes {@code b} and signals the owner once per drain. */
    void push(Buffer b) {
        Buffer h;
        do {
            h = head.get();
            b.nextReturned = h;
        } while (!head.compareAndSet(h, b));
        if (signalPending.compareAndSet(false, true) && releaseSignal != null) {
            releaseSignal.run();
        }
    }

    /** {@return every buffer pushed so far, linked through {@link Buffer#nextReturned}, or {@code null}; re-arms the signal} */
    Buffer takeAll() {
        signalPending.set(false);
        return head.getAndSet(null);
    }
}
