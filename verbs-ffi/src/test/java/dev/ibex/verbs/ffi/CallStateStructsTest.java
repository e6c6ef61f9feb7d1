package dev.ibex.verbs.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** A call's in-structs come from one per-thread block, zeroed, instead of an arena created and closed per call. */
class CallStateStructsTest {

    @Test
    void everyCallGetsZeroedSlicesOfTheSameBlock() {
        SegmentAllocator first = CallState.current().structs();
        MemorySegment a = first.allocate(128, 8);
        MemorySegment b = first.allocate(128, 8);
        assertThat(b.address()).isGreaterThanOrEqualTo(a.address() + 128);
        a.fill((byte) 7);
        b.fill((byte) 7);

        SegmentAllocator next = CallState.current().structs();
        MemorySegment again = next.allocate(128, 8);
        assertThat(again.address()).isEqualTo(a.address());
        assertThat(again.toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
        assertThat(next.allocate(1, 16).address() % 16).isZero();
    }

    @Test
    void aCallAskingForMoreThanTheBlockIsRefusedNotOverrun() {
        SegmentAllocator structs = CallState.current().structs();
        structs.allocate(1000, 8);
        assertThatThrownBy(() -> structs.allocate(128, 8)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void threadsHaveBlocksOfTheirOwn() throws Exception {
        long mine = CallState.current().structs().allocate(8, 8).address();
        long[] theirs = new long[1];
        Thread t = Thread.ofPlatform().start(() -> theirs[0] = CallState.current().structs().allocate(8, 8).address());
        t.join(10_000);
        assertThat(theirs[0]).isNotZero().isNotEqualTo(mine);
    }
}
