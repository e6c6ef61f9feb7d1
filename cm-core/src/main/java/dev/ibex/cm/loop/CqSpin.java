package dev.ibex.cm.loop;

import dev.ibex.cm.spi.Poller;
import java.util.List;

/**
 * A loop's busy-polling of its CQs ({@link LoopOptions#cqPollSpin()}): before blocking, the loop reads its CQs in a
 * tight loop for a while, leaving unarmed the CQs a notification found, so that a loop under load does not pay an
 * event (and a wake-up) per completion; it arms them again before it blocks.
 *
 * <p>Threading: the loop thread only.
 */
final class CqSpin {
    /** {@link LoopOptions#cqPollSpin()} in nanoseconds (0: the loop never spins on its CQs). */
    private final long spinNanos;
    /**
     * {@link LoopOptions#cqPollSpinLookInterval()}: how many rounds of CQ polls pass between two looks at the loop's
     * other sources and the clock while it spins.
     */
    private final int lookInterval;
    /** The loop's devices, indexable: walked without an iterator. */
    private final List<LoopDevice> devices;
    private final LoopCompletions completions;
    private final LoopTasks tasks;
    private final Poller poller;
    private final Poller.ReadyHandler readyHandler;

    CqSpin(long spinNanos, int lookInterval, List<LoopDevice> devices, LoopCompletions completions, LoopTasks tasks,
            Poller poller, Poller.ReadyHandler readyHandler) {
        this.spinNanos = spinNanos;
        this.lookInterval = lookInterval;
        this.devices = devices;
        this.completions = completions;
        this.tasks = tasks;
        this.poller = poller;
        this.readyHandler = readyHandler;
    }

    /** {@return whether the loop spins on its CQs (it leaves them unarmed meanwhile)} */
    boolean enabled() {
        return spinNanos > 0;
    }

    /** A turn that does not block: the unarmed CQs raise no event, so they are read each busy turn. */
    void pollUnarmed() {
        for (int i = 0; i < devices.size(); i++) {
            devices.get(i).pollUnarmed(completions);
        }
    }

    /**
     * Spins on the CQs, then arms again those left unarmed, before the loop would block for {@code timeout}.
     *
     * @param timeout the loop's wait in nanoseconds, -1 for none
     * @param start the turn's clock reading ({@link LoopTimers#now()}): the spin is timed from it, so that it does
     *     not read the clock once more
     * @return true when work came (a completion, a task or a ready source while spinning, or before re-arming):
     *     the loop then does not block
     */
    boolean spinThenRearm(long timeout, long start) {
        return spin(timeout, start) || rearm();
    }

    /**
     * Busy-polls the CQs for up to {@link LoopOptions#cqPollSpin()} (never beyond {@code timeout}), looking at the
     * tasks each round and, every {@link LoopOptions#cqPollSpinLookInterval()} rounds, at the poller without waiting
     * and at the clock, timed from {@code start}. The first CQ that holds completions has them dispatched here.
     *
     * @return true when work came (completions dispatched, a task queued, a source ready), false when the spin ended
     */
    private boolean spin(long timeout, long start) {
        long spin = timeout < 0 ? spinNanos : Math.min(spinNanos, timeout);
        for (int untilLook = lookInterval;;) {
            for (int i = 0; i < devices.size(); i++) {
                if (devices.get(i).pollOnce(completions)) {
                    return true;
                }
            }
            if (tasks.pending()) {
                return true;
            }
            if (--untilLook == 0) { // a countdown: no division per round
                untilLook = lookInterval;
                try {
                    if (poller.poll(0, readyHandler) > 0) {
                        return true;
                    }
                } catch (RuntimeException e) {
                    return false; // the blocking poll reports it
                }
                if (System.nanoTime() - start >= spin) {
                    return false;
                }
            }
            // no Thread.onSpinWait(): each round is a poll of every CQ already, and BlockHound counts it as blocking
        }
    }

    /**
     * Arms again the CQs a notification left unarmed and polls each once (what completed while it was unarmed
     * raised no event).
     *
     * @return whether one held completions (dispatched)
     */
    private boolean rearm() {
        boolean found = false;
        for (int i = 0; i < devices.size(); i++) {
            found |= devices.get(i).rearm(completions);
        }
        return found;
    }
}
