package dev.ibex.cm.fake;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcStatus;
import java.util.ArrayDeque;

/**
 * A CQ with verbs eventing: arming while entries already wait raises no event (only a later completion does),
 * one event per arm, and destroying it with events taken but not acknowledged is recorded as a violation (real
 * {@code ibv_destroy_cq} would hang). Overrunning the capacity raises {@code CQ_ERR}.
 */
public final class FakeCq implements CompletionQueue {
    /** A completion as the fake stores it. */
    record Cqe(long wrId, WcStatus status, int opcode, int byteLen, int qpNum, int flags, int imm, int srcQp,
            FakeQp sender, long sendSeq) {}

    private final FakeFabric fabric;
    private final FakeCompletionChannel channel;
    private final int capacity;
    private final ArrayDeque<Cqe> entries = new ArrayDeque<>();
    /**
     * Whether {@link #entries} may hold something, readable without the fabric's lock: an empty poll — a loop spinning
     * on its CQs makes millions — does not take the lock, so it cannot starve the threads that add completions (a
     * monitor is not fair). Written under the lock.
     */
    private volatile boolean mayHoldEntries;
    private Object context;
    private boolean armed;
    private int taken;
    private int acked;
    int users;
    private volatile boolean closed;
    /** Calls of {@link #poll}: written by the polling (loop) thread only. */
    private volatile long polls;
    /** Volatile: the lock-free empty poll must not skip a hook. */
    private volatile Runnable afterDrain;
    FakeDevice device;

    FakeCq(FakeFabric fabric, int capacity, FakeCompletionChannel channel) {
        this.fabric = fabric;
        this.capacity = capacity;
        this.channel = channel;
        if (channel != null) {
            synchronized (fabric.lock) {
                channel.cqs++;
            }
        }
        fabric.tracker.opened(this);
    }

    @Override public int capacity() { return capacity; }
    @Override public CompletionChannel channel() { return channel; }
    @Override public Object context() { return context; }
    @Override public void context(Object context) { this.context = context; }

    /** {@return how many times {@link #poll} was called (empty polls included)} */
    public long polls() {
        return polls;
    }

    @Override
    public int poll(CompletionBatch batch) {
        polls++; // one polling thread
        if (!mayHoldEntries && afterDrain == null && !closed) {
            return 0;
        }
        synchronized (fabric.lock) {
            check();
            int n = Math.min(batch.capacity(), entries.size());
            for (int i = 0; i < n; i++) {
                Cqe c = entries.poll();
                batch.set(i, c.wrId(), c.status(), c.opcode(), c.byteLen(), c.qpNum(), c.flags());
                if ((c.flags() & WcFlags.WITH_IMM) != 0) {
                    batch.setImmData(i, c.imm());
                }
                batch.setSrcQp(i, c.srcQp());
                if (c.sender() != null) {
                    c.sender().retire(c.sendSeq());
                }
            }
            if (n < batch.capacity() && afterDrain != null) {
                Runnable hook = afterDrain;
                afterDrain = null;
                hook.run();
            }
            mayHoldEntries = !entries.isEmpty();
            return n;
        }
    }

    @Override
    public void requestNotify(boolean solicitedOnly) {
        synchronized (fabric.lock) {
            check();
            armed = true;
        }
    }

    @Override
    public void ackEvents(int count) {
        synchronized (fabric.lock) {
            if (count < 0 || acked + count > taken) {
                fabric.violation("ibv_ack_cq_events(" + count + ") acknowledges more events than were taken ("
                        + taken + " taken, " + acked + " acked)");
            }
            acked += count;
        }
    }

    /** Called by the channel when it hands this CQ out: one more event that must be acknowledged. */
    boolean taken() {
        synchronized (fabric.lock) {
            if (closed) {
                return false;
            }
            taken++;
            return true;
        }
    }

    /**
     * Adds a completion (test side, or the fake's QPs). Caller may hold the lock. On a closed CQ it is dropped;
     * past the capacity it is dropped, recorded as a violation and raises {@code CQ_ERR}.
     *
     * @param wrId the work request id the completion reports
     * @param status the completion status
     * @param opcode the {@link dev.ibex.cm.spi.WcOpcode} value
     * @param byteLen the bytes received (receive completions), else 0
     * @param qpNum the number of the QP the work request was posted to
     */
    public void complete(long wrId, WcStatus status, int opcode, int byteLen, int qpNum) {
        add(new Cqe(wrId, status, opcode, byteLen, qpNum, 0, 0, 0, null, -1));
    }

    /**
     * Adds a completion without its CQ event, even when the CQ is armed: a completion whose event is still on its
     * way, which only a reader polling the CQ itself sees (a loop's CQ spin).
     *
     * @param wrId the work request id the completion reports
     * @param status the completion status
     * @param opcode the {@link dev.ibex.cm.spi.WcOpcode} value
     */
    public void completeWithoutEvent(long wrId, WcStatus status, int opcode) {
        synchronized (fabric.lock) {
            boolean wasArmed = armed;
            armed = false;
            add(new Cqe(wrId, status, opcode, 0, 1, 0, 0, 0, null, -1));
            armed = wasArmed;
        }
    }

    void add(Cqe c) {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            if (entries.size() >= capacity) {
                fabric.violation("CQ overrun: capacity " + capacity);
                if (device != null) {
                    fabric.raise(new AsyncEvent(AsyncEventType.CQ_ERR, device, null, this, null, 0));
                }
                return;
            }
            entries.add(c);
            mayHoldEntries = true;
            if (armed && channel != null) {
                armed = false;
                channel.notify(this);
            }
        }
    }

    /**
     * Runs {@code hook} once, right after the next poll that empties the CQ: a completion added there lands in the
     * window where a reader that polls before re-arming would lose its notification.
     *
     * @param hook what to run, on the polling thread, while the fabric's lock is held
     */
    public void afterNextDrain(Runnable hook) {
        synchronized (fabric.lock) {
            afterDrain = hook;
        }
    }

    /** {@return how many completions wait to be polled} */
    public int size() {
        synchronized (fabric.lock) {
            return entries.size();
        }
    }

    /** {@return how many completion events were taken from the channel and not yet acknowledged} */
    public int unacked() {
        synchronized (fabric.lock) {
            return taken - acked;
        }
    }

    /** {@return whether the CQ is armed: the next completion will raise an event on its channel} */
    public boolean isArmed() {
        synchronized (fabric.lock) {
            return armed;
        }
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("CQ is closed");
        }
    }

    @Override
    public void close() {
        synchronized (fabric.lock) {
            if (closed) {
                return;
            }
            if (users > 0) {
                throw new RdmaException("ibv_destroy_cq", Errno.EBUSY, users + " QPs still use the CQ");
            }
            if (taken != acked) {
                fabric.violation("ibv_destroy_cq with " + (taken - acked) + " unacknowledged events (would hang)");
            }
            closed = true;
            if (channel != null) {
                channel.cqs--;
                channel.forget(this);
            }
        }
        fabric.tracker.closed(this);
    }
}
