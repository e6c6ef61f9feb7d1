package dev.ibex.cm.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ResourceKind;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BufferPoolTest {
    private final FakeFabric fabric = FakeFabric.scripted();
    private final ProtectionDomain pd = fabric.devices().get(0).allocPd();
    private final AtomicInteger signals = new AtomicInteger();

    private BufferPool pool(int perSlab, int max, boolean track) {
        return new BufferPool(pd, BufferPool.Options.DEFAULT.withBufferSize(256).withSlabs(perSlab, max)
                .withLeakTracking(track), signals::incrementAndGet);
    }

    @AfterEach
    void close() {
        fabric.close();
    }

    /** An exhausted pool wakes who waits once a buffer comes back, through the owner's scheduler, in order. */
    @Test
    void waitersRunOnceWhenABufferComesBack() {
        BufferPool p = pool(2, 2, false);
        List<Runnable> scheduled = new ArrayList<>();
        p.wakeWith(() -> scheduled.add(p::runWaiters));
        Buffer a = p.acquire();
        Buffer b = p.acquire();
        assertThat(p.canAcquire()).isFalse();
        assertThat(p.headroom()).isZero();
        List<String> woken = new ArrayList<>();
        p.whenFree(() -> woken.add("first"));
        p.whenFree(() -> woken.add("second"));
        assertThat(scheduled).as("nothing free: nothing scheduled").isEmpty();
        a.release();
        assertThat(scheduled).hasSize(1);
        scheduled.remove(0).run();
        assertThat(woken).containsExactly("first", "second"); // each checks for itself whether one is left
        assertThat(p.headroom()).isEqualTo(1);
        b.release();
        assertThat(scheduled).as("no waiter left: no wake-up").isEmpty();
    }

    /**
     * Receives leave the send reserve (a sixteenth of the pool) alone unless their queue has nothing posted, and a
     * receive queue refused for the reserve is woken only once more than the reserve is free — not on every buffer
     * that comes back (it would spin on the loop).
     */
    @Test
    void receivesLeaveTheSendReserveAndAreWokenOnlyWhenMoreIsFree() {
        BufferPool p = pool(8, 32, false);
        assertThat(p.receiveReserve()).isEqualTo(2);
        List<Runnable> scheduled = new ArrayList<>();
        p.wakeWith(() -> scheduled.add(p::runWaiters));
        List<Buffer> taken = new ArrayList<>();
        for (Buffer b; (b = p.tryAcquireForReceive(false)) != null; ) {
            taken.add(b);
        }
        assertThat(taken).as("receives stop at the reserve").hasSize(30);
        assertThat(p.headroom()).isEqualTo(2);
        Buffer essential = p.tryAcquireForReceive(true);
        assertThat(essential).as("a queue with nothing posted may dip into it").isNotNull();
        List<String> woken = new ArrayList<>();
        p.whenReceivable(() -> woken.add("receive"));
        Buffer send = p.tryAcquire();
        assertThat(send).as("a send takes the last of the reserve").isNotNull();
        send.release(); // headroom 0 → 1
        essential.release(); // 1 → 2: still only the reserve
        assertThat(scheduled).as("not woken for the reserve").isEmpty();
        taken.remove(0).release(); // 2 → 3
        assertThat(scheduled).hasSize(1);
        scheduled.remove(0).run();
        assertThat(woken).containsExactly("receive");
        taken.forEach(Buffer::release);
    }

    @Test
    void growsASlabAtATimeRegisteringEachOnceUpToTheLimit() {
        BufferPool p = pool(4, 10, false);
        assertThat(p.allocated()).isZero();
        List<Buffer> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(p.acquire());
        }
        assertThat(p.allocated()).isEqualTo(10);
        assertThat(fabric.count(ResourceKind.MEMORY_REGION)).as("slabs of 4, 4 and 2").isEqualTo(3);
        assertThat(p.tryAcquire()).isNull();
        assertThatThrownBy(p::acquire).isInstanceOf(PoolExhaustedException.class).hasMessageContaining("all 10 buffers")
                .hasMessageContaining("ENOBUFS");
        assertThat(held).extracting(Buffer::index).doesNotHaveDuplicates();
        assertThat(held).allSatisfy(b -> assertThat(b.capacity()).isEqualTo(256));
        assertThat(held.get(0).address() % 4096).as("slabs are page aligned").isZero();
        held.get(3).release();
        assertThat(p.acquire()).isSameAs(held.get(3));
        p.close();
        assertThat(fabric.count(ResourceKind.MEMORY_REGION)).isZero();
    }

    @Test
    void slabsAreRegisteredForLocalAccessOnlyByDefault() {
        BufferPool p = new BufferPool(pd, BufferPool.Options.DEFAULT, null);
        Buffer b = p.acquire();
        assertThat(b.region().access()).as("no remote right on a pool slab").isEqualTo(Access.LOCAL_WRITE.bit());
        assertThat(b.lkey()).isEqualTo(b.region().lkey());
        assertThatThrownBy(() -> BufferPool.Options.DEFAULT.withAccess(EnumSet.of(Access.REMOTE_WRITE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LOCAL_WRITE");
        b.release();
        p.close();
    }

    @Test
    void anExposedBufferReturnsToThePoolOnlyOnceItsExposuresEnded() {
        BufferPool p = pool(2, 2, false);
        Buffer b = p.acquire();
        List<BufferExposure> asked = new ArrayList<>();
        BufferExposure first = new BufferExposure() {
            @Override
            public void bufferReleased() {
                asked.add(this);
            }
        };
        BufferExposure second = new BufferExposure() {
            @Override
            public void bufferReleased() {
                asked.add(this);
            }
        };
        b.addExposure(first);
        b.addExposure(second);
        assertThat(b.isExposed()).isTrue();
        b.release();
        assertThat(asked).as("releasing asks every exposure to end").containsExactly(first, second);
        assertThat(p.available()).isEqualTo(1);
        assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class);
        b.exposureEnded(first);
        assertThat(p.available()).as("one exposure is still live").isEqualTo(1);
        b.exposureEnded(second);
        assertThat(p.available()).isEqualTo(2);
        assertThat(b.isFree()).isTrue();
        // an exposure that ends at once, while the release asks it to
        Buffer c = p.acquire();
        BufferExposure immediate = new BufferExposure() {
            @Override
            public void bufferReleased() {
                c.exposureEnded(this);
            }
        };
        c.addExposure(immediate);
        c.release();
        assertThat(c.isFree()).isTrue();
        assertThat(p.available()).isEqualTo(2);
        p.close();
    }

    @Test
    void aDoubleReleaseIsRefusedAndNamesTheFirstRelease() {
        BufferPool p = pool(4, 4, true);
        Buffer b = p.acquire();
        b.release();
        assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released")
                .satisfies(e -> assertThat(e.getSuppressed()[0].getStackTrace())
                        .extracting(StackTraceElement::getMethodName)
                        .contains("aDoubleReleaseIsRefusedAndNamesTheFirstRelease"));
        assertThat(p.available()).as("the buffer is in the pool once").isEqualTo(4);
        p.close();
    }

    @Test
    void aLentBufferCannotBeReleased() {
        BufferPool p = pool(4, 4, false);
        Buffer b = p.acquire();
        b.lend();
        assertThatThrownBy(b::release).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lent to the hardware");
        b.reclaim();
        b.release();
        assertThat(b.isFree()).isTrue();
        p.close();
    }

    @Test
    void theLeakDetectorReportsUnreleasedBuffersWithWhereTheyWereAcquired() {
        BufferPool p = pool(8, 8, true);
        Buffer kept = p.acquire();
        p.acquire().release();
        Buffer received = p.acquire();
        received.lend();
        received.deliver(0, 10, 0, 0, 0, null);
        List<BufferLeak> leaks = p.leaks();
        assertThat(leaks).extracting(BufferLeak::index).containsExactlyInAnyOrder(kept.index(), received.index());
        assertThat(leaks.get(0).toString()).contains("never released").contains("acquired at")
                .contains("theLeakDetectorReportsUnreleasedBuffersWithWhereTheyWereAcquired");
        kept.release();
        received.release();
        assertThat(p.leaks()).isEmpty();
        p.close();
    }

    @Test
    void buffersReleasedOnAnotherThreadComeBackThroughTheReturnStack() throws Exception {
        BufferPool p = pool(4, 4, false);
        List<Buffer> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(p.acquire());
        }
        Thread t = Thread.ofPlatform().start(() -> all.forEach(Buffer::release));
        t.join(5000);
        assertThat(signals.get()).as("one signal for the whole batch").isEqualTo(1);
        assertThat(p.available()).isZero();
        assertThat(p.tryAcquire()).as("acquire drains the returns").isNotNull();
        assertThat(p.available()).isEqualTo(3);
        Thread other = Thread.ofPlatform().start(() -> assertThatThrownBy(p::acquire)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("event loop thread"));
        other.join(5000);
        p.close();
    }

    @Test
    void theOwnerOfADeliveredBufferHearsOfItsRelease() {
        BufferPool p = pool(4, 4, false);
        Buffer b = p.acquire();
        b.segment().set(ValueLayout.JAVA_INT, 40, 7);
        b.lend();
        List<Buffer> told = new ArrayList<>();
        b.deliver(40, 4, 0, 0, 0x42, told::add);
        assertThat(b.offset()).isEqualTo(40);
        assertThat(b.length()).isEqualTo(4);
        assertThat(b.sourceQp()).isEqualTo(0x42);
        assertThat(b.segment().get(ValueLayout.JAVA_INT, b.offset())).isEqualTo(7);
        b.release();
        assertThat(told).containsExactly(b);
        assertThat(b.isFree()).isTrue();
        p.close();
    }

    @Test
    void aClosedPoolRefusesUseAndItsMemoryIsGone() {
        BufferPool p = pool(4, 4, false);
        Buffer b = p.acquire();
        p.close();
        assertThatThrownBy(p::acquire).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> b.segment().get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        b.release(); // harmless after close
        assertThat(fabric.resources().get(ResourceKind.MEMORY_REGION)).isZero();
    }
}
