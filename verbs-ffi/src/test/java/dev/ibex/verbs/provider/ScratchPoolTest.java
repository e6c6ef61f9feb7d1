package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** QP scratch comes back to the pool when its owner is destroyed, and is handed out again zeroed. */
class ScratchPoolTest {

    @Test
    void aClosedLeasesBlocksAreReusedZeroedInsteadOfAllocatedAgain() {
        try (Arena arena = Arena.ofShared()) {
            ScratchPool pool = new ScratchPool(arena);
            for (int qp = 0; qp < 100; qp++) { // a hundred QPs made and destroyed one after another
                ScratchPool.Lease lease = pool.lease();
                MemorySegment badWr = lease.allocate(8, 8);
                MemorySegment data = lease.allocate(64, 8);
                assertThat(badWr.get(ValueLayout.JAVA_LONG, 0)).isZero();
                assertThat(data.get(ValueLayout.JAVA_LONG, 56)).isZero();
                badWr.set(ValueLayout.JAVA_LONG, 0, -1L);
                data.set(ValueLayout.JAVA_LONG, 56, -1L);
                lease.close();
            }
            assertThat(pool.blocks()).isEqualTo(2);
        }
    }

    @Test
    void liveLeasesNeverShareABlockAndSizesStayApart() {
        try (Arena arena = Arena.ofShared()) {
            ScratchPool pool = new ScratchPool(arena);
            ScratchPool.Lease a = pool.lease();
            ScratchPool.Lease b = pool.lease();
            MemorySegment a8 = a.allocate(8, 8);
            MemorySegment b8 = b.allocate(8, 8);
            assertThat(a8.address()).isNotEqualTo(b8.address());
            a.close();
            a.close(); // idempotent: the block is not returned twice
            MemorySegment c16 = pool.lease().allocate(16, 8);
            MemorySegment c8 = pool.lease().allocate(8, 8);
            MemorySegment d8 = pool.lease().allocate(8, 8);
            assertThat(c16.address()).isNotEqualTo(a8.address());
            assertThat(c8.address()).isEqualTo(a8.address());
            assertThat(d8.address()).isNotEqualTo(a8.address()).isNotEqualTo(b8.address());
            assertThat(a8.scope()).isEqualTo(arena.scope());
            assertThatThrownBy(() -> a.allocate(8, 8)).isInstanceOf(IllegalStateException.class);
        }
    }
}
