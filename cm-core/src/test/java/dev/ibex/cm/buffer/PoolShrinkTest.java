package dev.ibex.cm.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ResourceKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link BufferPool#trim}: idle slabs go after the idle time, down to the minimum; busy, held and exposed stay. */
class PoolShrinkTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final FakeFabric fabric = FakeFabric.scripted();
    private final ProtectionDomain pd = fabric.devices().get(0).allocPd();

    /** Slabs of 4 buffers, at most 40 (10 slabs), keeping at least {@code min} after 1 s idle. */
    private BufferPool pool(int min) {
        return new BufferPool(pd, BufferPool.Options.DEFAULT.withBufferSize(256).withSlabs(4, 40)
                .withShrink(min, Duration.ofSeconds(1)), null);
    }

    private int regions() {
        return fabric.count(ResourceKind.MEMORY_REGION);
    }

    @AfterEach
    void close() {
        fabric.close();
    }

    @Test
    void slabsIdleForTheIdleTimeAreDeregisteredDownToTheMinimum() {
        BufferPool p = pool(8);
        List<Buffer> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            held.add(p.acquire());
        }
        assertThat(p.slabs()).isEqualTo(10);
        assertThat(p.registeredBytes()).isEqualTo(40 * 256);
        assertThat(p.trimmable()).isTrue();
        assertThat(p.trim(0)).as("all in use").isZero();
        held.forEach(Buffer::release);
        assertThat(p.trim(SECOND)).as("idle from now on").isZero();
        assertThat(p.trim(SECOND + SECOND / 2)).as("not idle long enough").isZero();
        assertThat(regions()).isEqualTo(10);
        assertThat(p.trim(2 * SECOND)).as("idle for 1 s: all but the minimum of 8 buffers go").isEqualTo(8);
        assertThat(p.slabs()).isEqualTo(2);
        assertThat(p.allocated()).isEqualTo(8);
        assertThat(p.registeredBytes()).isEqualTo(8 * 256);
        assertThat(regions()).as("deregistered").isEqualTo(2);
        assertThat(p.slabsFreed()).isEqualTo(8);
        assertThat(p.trimmable()).isFalse();
        assertThat(p.trim(10 * SECOND)).as("never below the minimum").isZero();
        // the highest slabs went: indexes of freed slabs name nothing; a stale reference refuses use
        assertThat(p.buffer(7)).isNotNull();
        assertThat(p.buffer(8)).isNull();
        assertThat(p.buffer(39)).isNull();
        assertThatThrownBy(held.get(39)::release).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        assertThat(p.available()).isEqualTo(8);
        // growing again fills the holes, lowest first, with the same index ranges
        for (int i = 0; i < 12; i++) {
            p.acquire();
        }
        assertThat(p.slabs()).isEqualTo(3);
        assertThat(p.buffer(8)).isNotNull();
        assertThat(p.buffer(12)).isNull();
        p.close();
        assertThat(regions()).isZero();
    }

    @Test
    void aSlabTouchedBetweenTrimsStartsItsIdleTimeAgain() {
        BufferPool p = pool(0);
        List<Buffer> held = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            held.add(p.acquire());
        }
        held.forEach(Buffer::release);
        assertThat(p.trim(0)).as("both were used since the last look").isZero();
        assertThat(p.trim(SECOND)).as("both idle from now on").isZero();
        // a burst between two trims: the pool looks idle at both, but slab 0 was used in between
        p.acquire().release();
        assertThat(p.trim(2 * SECOND)).as("slab 1, idle for 1 s, goes; slab 0 was used").isEqualTo(1);
        assertThat(p.slabs()).isEqualTo(1);
        assertThat(p.buffer(0)).isNotNull();
        assertThat(p.trim(2 * SECOND + SECOND / 2)).isZero();
        assertThat(p.trim(3 * SECOND + SECOND / 2)).isEqualTo(1);
        assertThat(p.slabs()).isZero();
        assertThat(regions()).isZero();
        p.close();
    }

    @Test
    void buffersComeFromTheLowestSlabSoHighSlabsEmptyOut() {
        BufferPool p = pool(0);
        List<Buffer> held = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            held.add(p.acquire());
        }
        held.get(1).release();
        held.get(10).release();
        held.get(5).release();
        assertThat(p.acquire().index()).as("lowest slab with a free buffer").isEqualTo(1);
        assertThat(p.acquire().index()).isEqualTo(5);
        assertThat(p.acquire().index()).isEqualTo(10);
        p.close();
    }

    @Test
    void aSlabWithAHeldBufferOrALiveExposureStays() {
        BufferPool p = pool(0);
        List<Buffer> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            all.add(p.acquire());
        }
        Buffer held = all.get(21); // slab 5
        Buffer exposed = all.get(29); // slab 7
        Buffer lent = all.get(33); // slab 8: posted to a work request
        List<BufferExposure> asked = new ArrayList<>();
        BufferExposure window = new BufferExposure() {
            @Override
            public void bufferReleased() {
                asked.add(this);
            }
        };
        exposed.addExposure(window);
        lent.lend();
        for (Buffer b : all) {
            if (b != held && b != lent) {
                b.release();
            }
        }
        assertThat(asked).as("releasing asked the exposure to end; its LOCAL_INV is outstanding").hasSize(1);
        p.trim(0);
        p.trim(SECOND);
        assertThat(p.trim(2 * SECOND)).isEqualTo(7);
        assertThat(p.slabs()).as("slabs 5 (held), 7 (exposed) and 8 (lent) stay").isEqualTo(3);
        assertThat(p.buffer(21)).isSameAs(held);
        assertThat(p.buffer(29)).isSameAs(exposed);
        assertThat(p.buffer(33)).isSameAs(lent);
        assertThat(regions()).isEqualTo(3);
        exposed.exposureEnded(window); // the window is invalidated: the buffer reaches the pool now
        lent.reclaim();
        lent.release();
        p.trim(3 * SECOND);
        assertThat(p.trim(4 * SECOND)).isEqualTo(2);
        assertThat(p.slabs()).as("only the held buffer's slab").isEqualTo(1);
        held.release();
        p.trim(5 * SECOND);
        assertThat(p.trim(6 * SECOND)).isEqualTo(1);
        assertThat(p.slabs()).isZero();
        assertThat(p.allocated()).isZero();
        assertThat(p.acquire().index()).as("grows again from slab 0").isZero();
        p.close();
    }

    @Test
    void aMinimumAtOrAboveTheLimitKeepsEverySlab() {
        BufferPool p = pool(40);
        List<Buffer> all = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            all.add(p.acquire());
        }
        all.forEach(Buffer::release);
        assertThat(p.trimmable()).isFalse();
        p.trim(0);
        assertThat(p.trim(100 * SECOND)).isZero();
        assertThat(p.slabs()).isEqualTo(10);
        assertThatThrownBy(() -> BufferPool.Options.DEFAULT.withShrink(-1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minBuffers");
        assertThatThrownBy(() -> BufferPool.Options.DEFAULT.withShrink(0, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idleTime");
        p.close();
    }
}
