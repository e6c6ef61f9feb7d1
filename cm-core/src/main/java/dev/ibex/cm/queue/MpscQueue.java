package dev.ibex.cm.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A bounded multi-producer single-consumer FIFO ring of references that allocates nothing after construction:
 * {@link #offer} fails (returns {@code false}) when the ring is full instead of growing or waiting, so what to do
 * then — wait, run elsewhere, count a drop — is the caller's documented decision. Elements of one producer come
 * out in the order it offered them; elements of different producers in the order their offers claimed a slot.
 *
 * <p>Design (Dmitry Vyukov's bounded queue, single consumer): slot {@code i} carries a sequence number. A producer
 * reads the tail ticket {@code t}; the slot {@code t mod capacity} is free for it when its sequence is {@code t},
 * the producer claims it by advancing the tail with a CAS, stores the element and then publishes it by setting the
 * sequence to {@code t + 1}. The consumer takes the slot of its head {@code h} once its sequence is {@code h + 1},
 * clears it and frees it for ticket {@code h + capacity} by setting the sequence to that. A sequence below the
 * ticket means the slot still holds the element of the previous lap: the ring is full. The sequence stores
 * release and the loads acquire, so the element written before a publish is seen by the thread that reads the
 * sequence. {@link #isEmpty()} compares the tail with the head (a claimed slot counts as pending even before it is
 * published), which lets a consumer that announces it is going to sleep (a volatile store) and then checks
 * {@code isEmpty()} pair with a producer whose tail CAS precedes its read of that announcement: one of them always
 * sees the other, so no element is left behind a sleeping consumer.
 *
 * <p>Threading: {@link #offer} from any thread; {@link #poll}, {@link #isEmpty} and {@link #size} from the single
 * consumer thread only.
 *
 * @param <E> the element type
 */
public final class MpscQueue<E> {
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(MpscQueue.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] elements;
    private final long[] sequence;
    private final int mask;
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    private long head; // consumer only

    /**
     * Creates an empty queue.
     *
     * @param capacity how many elements it holds at most, rounded up to a power of two; at least 2 (with one slot,
     *     "published at ticket t" and "free again for ticket t + 1" would be the same sequence number)
     * @throws IllegalArgumentException if {@code capacity} is below 2 or above 2<sup>30</sup>
     */
    public MpscQueue(int capacity) {
        if (capacity < 2 || capacity > 1 << 30) {
            throw new IllegalArgumentException("a queue holds between 2 and 2^30 elements, got " + capacity);
        }
        int size = Integer.highestOneBit(capacity - 1) << 1;
        elements = new Object[size];
        sequence = new long[size];
        for (int i = 0; i < size; i++) {
            sequence[i] = i;
        }
        mask = size - 1;
        VarHandle.releaseFence(); // the initial sequences before any producer sees the queue
    }

    /** {@return how many elements the queue holds at most (a power of two)} */
    public int capacity() {
        return mask + 1;
    }

    /**
     * Appends {@code e} unless the queue is full. Any thread; allocates nothing; never waits for the consumer (it
     * retries only when another producer claimed the same ticket first).
     *
     * @param e the element
     * @return {@code false} if the queue was full (nothing was added)
     * @throws NullPointerException if {@code e} is null
     */
    public boolean offer(E e) {
        Objects.requireNonNull(e, "element");
        for (;;) {
            long t = (long) TAIL.getVolatile(this);
            int idx = (int) (t & mask);
            long dif = (long) SEQUENCE.getAcquire(sequence, idx) - t;
            if (dif == 0) {
                if (TAIL.compareAndSet(this, t, t + 1)) {
                    ELEMENT.setOpaque(elements, idx, e);
                    SEQUENCE.setRelease(sequence, idx, t + 1);
                    return true;
                }
            } else if (dif < 0) {
                return false; // the slot still holds the element of the previous lap
            }
            // another producer took ticket t: retry with the next one (no onSpinWait: loop threads offer too, and
            // BlockHound counts it as blocking; a failed CAS means another offer succeeded, so this is lock-free)
        }
    }

    /**
     * Removes the oldest published element. Consumer thread only; allocates nothing.
     *
     * @return the element, or {@code null} if none is published (a producer that claimed the next slot may still be
     *     writing it: {@link #isEmpty()} is then {@code false} while this returns {@code null})
     */
    @SuppressWarnings("unchecked")
    public E poll() {
        int idx = (int) (head & mask);
        if ((long) SEQUENCE.getAcquire(sequence, idx) != head + 1) {
            return null;
        }
        E e = (E) ELEMENT.getOpaque(elements, idx);
        ELEMENT.setOpaque(elements, idx, null);
        SEQUENCE.setRelease(sequence, idx, head + mask + 1);
        head++;
        return e;
    }

    /**
     * Whether no producer has claimed a slot the consumer has not taken yet. Consumer thread only. A volatile read
     * of the tail: see the class comment for the sleep handshake it supports.
     *
     * @return {@code true} if nothing is queued or being queued
     */
    public boolean isEmpty() {
        return (long) TAIL.getVolatile(this) == head;
    }

    /**
     * How many elements are queued or being queued. Consumer thread only (from another thread only an estimate).
     *
     * @return between 0 and {@link #capacity()}
     */
    public int size() {
        return (int) Math.min((long) TAIL.getVolatile(this) - head, mask + 1L);
    }
}
