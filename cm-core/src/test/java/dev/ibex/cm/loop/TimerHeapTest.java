package dev.ibex.cm.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loop's timer heap: timers leave in deadline order, ties in scheduling order, and a cancelled one is gone at
 * once from any slot (what {@code PriorityQueue} did, without its search of the whole queue per cancel).
 */
class TimerHeapTest {
    private long seq;

    private ScheduledTask timer(long deadline) {
        ScheduledTask t = new ScheduledTask(null, () -> { }, deadline);
        t.seq = seq++;
        return t;
    }

    @Test
    void timersLeaveByDeadlineThenInTheOrderTheyWereScheduled() {
        TimerHeap heap = new TimerHeap();
        ScheduledTask late = timer(30);
        ScheduledTask firstAt10 = timer(10);
        ScheduledTask early = timer(5);
        ScheduledTask secondAt10 = timer(10);
        for (ScheduledTask t : List.of(late, firstAt10, early, secondAt10)) {
            heap.add(t);
        }
        assertThat(heap.peek()).isSameAs(early);
        assertThat(List.of(heap.poll(), heap.poll(), heap.poll(), heap.poll()))
                .containsExactly(early, firstAt10, secondAt10, late);
        assertThat(heap.poll()).isNull();
        assertThat(heap.size()).isZero();
    }

    @Test
    void removingATimerFromAnySlotKeepsTheRestInOrder() {
        Random random = new Random(17);
        TimerHeap heap = new TimerHeap();
        List<ScheduledTask> reference = new ArrayList<>();
        for (int round = 0; round < 2_000; round++) { // past the initial capacity: the array grows
            int op = random.nextInt(4);
            if (op < 2 || reference.isEmpty()) {
                ScheduledTask t = timer(random.nextInt(50)); // many equal deadlines: the tie-break matters
                heap.add(t);
                reference.add(t);
            } else if (op == 2) {
                ScheduledTask t = reference.remove(random.nextInt(reference.size()));
                heap.remove(t);
                assertThat(t.heapIndex).isEqualTo(-1);
                heap.remove(t); // a second cancel is harmless
            } else {
                reference.sort(Comparator.naturalOrder());
                assertThat(heap.poll()).isSameAs(reference.remove(0));
            }
            assertThat(heap.size()).isEqualTo(reference.size());
        }
        reference.sort(Comparator.naturalOrder());
        for (ScheduledTask expected : reference) {
            assertThat(heap.poll()).isSameAs(expected);
        }
        assertThat(heap.peek()).isNull();
    }

    @Test
    void removingATimerThatIsInNoHeapChangesNothing() {
        TimerHeap heap = new TimerHeap();
        ScheduledTask kept = timer(1);
        heap.add(kept);
        ScheduledTask polled = timer(0);
        heap.add(polled);
        assertThat(heap.poll()).isSameAs(polled);
        heap.remove(polled); // already run: its old slot now holds another timer
        heap.remove(timer(0)); // never added
        assertThat(heap.size()).isEqualTo(1);
        assertThat(heap.peek()).isSameAs(kept);
    }
}
