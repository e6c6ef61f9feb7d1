package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * {@link PollerCpus} and {@link IdleSpin#spinNanos}: an adaptive spin does not spin on a CPU another poller of the JVM
 * last went idle on while the machine has a CPU to spare (docs/benchmarks.md, "Two loops on one CPU"). Needs {@code
 * sched_getcpu} (Linux, the build's {@code --enable-native-access}); skipped without it.
 */
class PollerCpusTest {

    @Test
    void aPollerIsSeenOnTheCpuItLastWentIdleOnByOthersOnlyWhileItHoldsItsSeat() {
        assumeTrue(PollerCpus.available(), "sched_getcpu cannot be called here");
        int a = PollerCpus.take();
        int b = PollerCpus.take();
        try {
            assumeTrue(a >= 0 && b >= 0, "no free seats (pollers of other tests hold them)");
            assertThat(PollerCpus.sharer(b, 1, System.nanoTime()) >= 0).as("a seat that never went idle is on no CPU")
                    .isFalse();
            PollerCpus.idleOn(a, 1, System.nanoTime());
            assertThat(PollerCpus.sharer(b, 1, System.nanoTime()) >= 0).as("another seat on its CPU sees it").isTrue();
            assertThat(PollerCpus.sharer(a, 1, System.nanoTime()) >= 0).as("a poller does not see itself").isFalse();
            assertThat(PollerCpus.sharer(b, 0, System.nanoTime()) >= 0).as("another CPU does not").isFalse();
            assertThat(PollerCpus.sharer(b, -1, System.nanoTime()) >= 0).as("an unknown CPU does not").isFalse();
            PollerCpus.idleOn(a, 0, System.nanoTime());
            assertThat(PollerCpus.sharer(b, 1, System.nanoTime()) >= 0).as("it moved on").isFalse();
            PollerCpus.leave(a);
            assertThat(PollerCpus.sharer(b, 0, System.nanoTime()) >= 0).as("a freed seat is on no CPU").isFalse();
            PollerCpus.idleOn(a, 0, System.nanoTime());
            assertThat(PollerCpus.sharer(b, 0, System.nanoTime()) >= 0).as("a late note on a freed seat leaves it free")
                    .isFalse();
        } finally {
            PollerCpus.leave(a);
            PollerCpus.leave(b);
        }
    }

    @Test
    void aThreadMovedOffItsCpuRunsOnAnotherWithItsAffinityAsItWas() {
        assumeTrue(PollerCpus.available(), "sched_getcpu cannot be called here");
        MemorySegment set = PollerCpus.cpuSet(Arena.ofAuto());
        MemorySegment others = PollerCpus.cpuSet(Arena.ofAuto());
        long mask = PollerCpus.affinity(set);
        assumeTrue(Long.bitCount(mask) >= 2, "this thread may run on one CPU only");
        long moves = PollerCpus.moves();
        assertThat(PollerCpus.runnable(others)).as("/proc/loadavg's running count, this thread included").isPositive();
        int cpu = PollerCpus.currentCpu();
        assertThat(PollerCpus.moveOff(cpu, set, others)).isTrue();
        assertThat(PollerCpus.currentCpu()).as("moved off CPU " + cpu).isNotEqualTo(cpu);
        assertThat(PollerCpus.affinity(set)).as("the affinity is as it was").isEqualTo(mask);
        assertThat(PollerCpus.moves()).isEqualTo(moves + 1);
        assertThat(PollerCpus.moveOff(-1, set, others)).as("no CPU to move off").isFalse();
    }

    @Test
    void anAdaptiveSpinBlocksAtOnceOnACpuAnotherPollerLastWentIdleOnAndKeepsItsWindow() throws Exception {
        assumeTrue(PollerCpus.available(), "sched_getcpu cannot be called here");
        int p1 = PollerCpus.take();
        int p2 = PollerCpus.take();
        PollerCpus.leave(p1);
        PollerCpus.leave(p2);
        assumeTrue(p1 >= 0 && p2 >= 0, "no two free seats (pollers of other tests hold them)");
        IdleSpin spin = IdleSpin.adaptive(32_000);
        IdleSpin other = IdleSpin.adaptive(32_000);
        IdleSpin fixed = IdleSpin.fixed(5_000);
        try {
            for (int i = 0; i < 3; i++) {
                spin.blockedFor(1_000);
            }
            assertThat(spin.spinNanos()).as("alone: the window").isEqualTo(8_000);
            // the other poller goes idle on this thread's CPU (this thread runs both); a migration in between can make
            // one attempt see two CPUs, and the rule holds only while the machine has a CPU to spare, so attempts
            // that missed with few threads running are counted, and a loaded machine skips the test
            MemorySegment load = PollerCpus.cpuSet(Arena.ofAuto());
            int cpus = Runtime.getRuntime().availableProcessors();
            boolean blocked = false;
            int missedUnloaded = 0;
            for (int i = 0; i < 200 && !blocked; i++) {
                other.spinNanos();
                blocked = spin.spinNanos() == 0;
                if (!blocked) {
                    int runnable = PollerCpus.runnable(load);
                    if (runnable >= 0 && runnable <= cpus) {
                        missedUnloaded++;
                    }
                    Thread.sleep(2); // past the 1 ms the spin keeps its load reading
                }
            }
            assertThat(missedUnloaded).as("attempts that did not block with CPUs to spare").isLessThan(10);
            assumeTrue(blocked, "the machine never had a CPU to spare");
            assertThat(blocked).as("another poller last idle on this CPU: block at once").isTrue();
            assertThat(spin.window()).as("the adaptive window itself is kept").isEqualTo(8_000);
            assertThat(fixed.spinNanos()).as("a fixed spin spins anyway").isEqualTo(5_000);
            other.release();
            assertThat(spin.spinNanos()).as("a closed poller's seat holds nothing up").isEqualTo(8_000);
        } finally {
            spin.release();
            other.release();
        }
    }
}
