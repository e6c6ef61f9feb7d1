package dev.ibex.cm.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The loop's timers read the clock at most once per turn, and not at all for the timers when none waits: in a TCG
 * guest (the Soft-RoCE VM, issue 18) each read is an emulated HPET access, and a busy-polling loop turns once per
 * message.
 */
class LoopTimersTest {
    /** A clock that counts its reads. */
    private static final class CountingClock implements LongSupplier {
        long time;
        int reads;

        @Override
        public long getAsLong() {
            reads++;
            return time;
        }
    }

    private final CountingClock clock = new CountingClock();
    private final List<String> ran = new ArrayList<>();
    private final LoopTimers timers = new LoopTimers(Runnable::run, clock);

    private ScheduledTask timer(String name, long deadline) {
        ScheduledTask t = new ScheduledTask(null, () -> ran.add(name), deadline);
        timers.add(t);
        return t;
    }

    @Test
    void aTurnWithNoTimerReadsTheClockOnlyForItsSpin() {
        timers.runDue();
        assertThat(timers.untilNext()).isEqualTo(-1);
        assertThat(clock.reads).isZero();
        clock.time = 7;
        assertThat(timers.now()).isEqualTo(7); // the spin's start
        assertThat(clock.reads).isOne();
    }

    @Test
    void aTurnWithATimerWaitingReadsTheClockOnceForItsTimersItsWaitAndItsSpin() {
        timer("later", 100);
        clock.time = 40;
        timers.runDue();
        assertThat(timers.untilNext()).isEqualTo(60);
        assertThat(timers.now()).isEqualTo(40);
        assertThat(clock.reads).isOne();
        assertThat(ran).isEmpty();

        clock.time = 70; // the next turn reads the clock again
        timers.runDue();
        assertThat(timers.untilNext()).isEqualTo(30);
        assertThat(clock.reads).isEqualTo(2);
    }

    @Test
    void afterATimerRanTheTurnReadsTheClockAgain() {
        timer("due", 10);
        timer("later", 100);
        clock.time = 20;
        timers.runDue();
        assertThat(ran).containsExactly("due");
        clock.time = 50; // the timer's task took time
        assertThat(timers.untilNext()).isEqualTo(50);
        assertThat(timers.now()).isEqualTo(50);
        assertThat(clock.reads).isEqualTo(2);
    }

    @Test
    void dueTimersRunInDeadlineOrderAndRemovedOnesNever() {
        timer("b", 20);
        timer("a", 10);
        timers.remove(timer("removed", 15)); // a cancel on the loop
        timer("c", 30);
        clock.time = 25;
        timers.runDue();
        assertThat(ran).containsExactly("a", "b");
        assertThat(timers.untilNext()).isEqualTo(5);
    }
}
