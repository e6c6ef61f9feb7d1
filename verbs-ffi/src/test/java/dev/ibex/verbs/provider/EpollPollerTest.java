package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.spi.EventSource;
import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.verbs.ffi.EventFd;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The epoll poller against the kernel, with eventfds standing in for CM/completion/async fds. */
class EpollPollerTest {
    private final NativeFabric fabric = NativeFabric.detached();
    private final List<EventFd> fds = new ArrayList<>();

    /** An eventfd as an event source. */
    private record FdOf(EventFd fd) implements FdSource {
        @Override
        public int pollFd() {
            return fd.fd();
        }
    }

    private FdOf source() {
        EventFd fd = EventFd.create();
        fds.add(fd);
        return new FdOf(fd);
    }

    @AfterEach
    void tearDown() {
        fabric.close();
        fds.forEach(EventFd::close);
    }

    @Test
    void readySourcesAreReportedWithTheirAttachmentsWhileTheyStayReadable() {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        FdOf a = source();
        FdOf b = source();
        poller.register(a, "A");
        poller.register(b, "B");
        List<Object> seen = new ArrayList<>();

        assertThat(poller.poll(0, seen::add)).isZero();
        a.fd().signal();
        assertThat(poller.poll(TimeUnit.SECONDS.toNanos(5), seen::add)).isEqualTo(1);
        assertThat(seen).containsExactly("A");
        assertThat(poller.poll(0, seen::add)).as("level-triggered: still readable").isEqualTo(1);
        a.fd().drain();
        b.fd().signal();
        seen.clear();
        assertThat(poller.poll(0, seen::add)).isEqualTo(1);
        assertThat(seen).containsExactly("B");

        poller.deregister(b);
        assertThat(poller.poll(0, seen::add)).as("deregistered").isZero();
        assertThat(poller.isRegistered(b)).isFalse();
        poller.deregister(b);
    }

    @Test
    void wakeupFromAnotherThreadEndsAnUnboundedWait() throws Exception {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        poller.register(source(), "never ready");
        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> poller.poll(-1, x -> { }));
        Thread.onSpinWait();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
            poller.wakeup();
            return waiting.isDone();
        });
        assertThat(waiting.get()).isZero();
        poller.wakeup();
        poller.wakeup();
        assertThat(poller.poll(TimeUnit.SECONDS.toNanos(5), x -> { })).as("a pending wake-up ends the next poll").isZero();
        assertThat(poller.poll(0, x -> { })).isZero();
    }

    /**
     * Wake-ups racing with the poll that consumes the previous one are never lost: the poll read the eventfd's counter
     * after clearing its "wake pending" flag, so a wake-up written in between was read away while the flag stayed set,
     * and every later wake-up was skipped — the loop slept for good with tasks queued (seen in the VM tier: "ibex-loop-0
     * did not run the call within 30 s", the loop in epoll_wait).
     */
    @Test
    void wakeupsRacingWithThePollThatConsumesOneAreNeverLost() throws Exception {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        java.util.concurrent.atomic.AtomicLong polls = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread loop = Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                poller.poll(-1, a -> { });
                polls.incrementAndGet();
            }
        });
        Thread[] wakers = new Thread[2];
        long end = System.nanoTime() + 1_500_000_000L;
        for (int i = 0; i < wakers.length; i++) {
            wakers[i] = Thread.ofPlatform().start(() -> {
                while (System.nanoTime() < end) {
                    poller.wakeup();
                }
            });
        }
        for (Thread w : wakers) {
            w.join();
        }
        for (int round = 0; round < 20; round++) { // the spam is over: each single wake-up must still end a poll
            long before = polls.get();
            Thread.sleep(5);
            poller.wakeup();
            await().atMost(java.time.Duration.ofSeconds(5)).until(() -> polls.get() > before);
        }
        stop.set(true);
        poller.wakeup();
        loop.join(5_000);
        assertThat(loop.isAlive()).isFalse();
    }

    @Test
    void closingWhileAnotherThreadWaitsWakesItAndLaterUseFails() {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        CompletableFuture<Integer> waiting = CompletableFuture.supplyAsync(() -> poller.poll(-1, x -> { }));
        await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(50)).until(() -> true);
        poller.close();
        assertThat(waiting).succeedsWithin(Duration.ofSeconds(10));
        assertThatThrownBy(() -> poller.poll(0, x -> { })).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> poller.register(source(), null)).isInstanceOf(IllegalStateException.class);
        poller.wakeup();
        poller.close();
        assertThat(fabric.resources().get(ResourceKind.POLLER)).isZero();
    }

    /**
     * An event loop closes its poller while other threads still call {@code wakeup()} (they submitted a task as
     * the loop shut down). A wake-up's eventfd write holds the poller's arena during the downcall; closing must
     * wait for it rather than fail with "Session is acquired by 1 clients" (leaking the arena and leaving the
     * poller half-closed) or let it write to a closed fd.
     */
    @Test
    void closingWhileOtherThreadsWakeItClosesCleanly() throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        int rounds = 0;
        while (rounds < 20 || (System.nanoTime() < end && rounds < 2_000)) {
            EpollPoller poller = (EpollPoller) fabric.createPoller();
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            Thread waker = Thread.ofPlatform().start(() -> {
                started.countDown();
                while (!stop.get()) {
                    poller.wakeup();
                }
            });
            try {
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                for (int i = rounds % 7; i >= 0; i--) {
                    poller.poll(0, x -> { }); // clears the pending flag, so the waker writes again right away
                }
                poller.close();
            } finally {
                stop.set(true);
                waker.join(TimeUnit.SECONDS.toMillis(10));
            }
            assertThat(waker.isAlive()).isFalse();
            rounds++;
        }
        assertThat(fabric.resources().get(ResourceKind.POLLER)).as("every poller closed").isZero();
    }

    @Test
    void onlyProviderSourcesCanBeRegisteredAndOnlyOnce() {
        Poller poller = fabric.createPoller();
        assertThatThrownBy(() -> poller.register(new EventSource() { }, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not an event source");
        FdOf a = source();
        poller.register(a, null);
        assertThatThrownBy(() -> poller.register(a, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> poller.poll(0, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void slotsAreReusedAndManySourcesFit() {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        List<FdOf> sources = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            FdOf s = source();
            sources.add(s);
            poller.register(s, i);
        }
        sources.get(77).fd().signal();
        List<Object> seen = new ArrayList<>();
        assertThat(poller.poll(0, seen::add)).isEqualTo(1);
        assertThat(seen).containsExactly(77);
        for (FdOf s : sources) {
            poller.deregister(s);
        }
        FdOf again = source();
        poller.register(again, "again");
        again.fd().signal();
        seen.clear();
        poller.poll(0, seen::add);
        assertThat(seen).containsExactly("again");
    }

    @Test
    void theFabricTracksAndClosesPollers() {
        fabric.createPoller();
        fabric.createPoller();
        assertThat(fabric.resources().get(ResourceKind.POLLER)).isEqualTo(2);
        assertThat(fabric.resources().userResources()).isZero();
        fabric.close();
        assertThat(fabric.resources().total()).isZero();
        assertThatThrownBy(fabric::createPoller).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pollingAllocatesNothingOnceCompiled() {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        FdOf a = source();
        poller.register(a, "A");
        a.fd().signal();
        long[] count = new long[1];
        Poller.ReadyHandler handler = x -> count[0]++;
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        // the JIT needs a few hundred thousand calls before escape analysis removes the FFM temporaries
        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 20 && allocated > 0; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 50_000; i++) {
                poller.poll(0, handler);
                poller.wakeup();
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertThat(count[0]).isPositive();
        assertThat(allocated).as("bytes allocated by 50000 polls and wake-ups, once compiled").isLessThan(4096);
    }

    @Test
    void aSpinningPollSeesASourceSignalledDuringTheSpinWithoutBlocking() {
        try (NativeFabric spinning = NativeFabric.detached(TimeUnit.MINUTES.toNanos(1))) {
            EpollPoller poller = (EpollPoller) spinning.createPoller();
            assertThat(poller.spinNanos()).isEqualTo(TimeUnit.MINUTES.toNanos(1));
            FdOf a = source();
            poller.register(a, "A");
            List<Object> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> poller.poll(-1, seen::add));
            await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(50)).until(() -> true);
            a.fd().signal();
            assertThat(polling).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(1);
            assertThat(seen).containsExactly("A");
            assertThat(poller.blockingWaits()).as("seen while spinning: epoll_wait never blocked").isZero();
        }
    }

    @Test
    void aWakeupDuringTheSpinEndsThePoll() {
        try (NativeFabric spinning = NativeFabric.detached(TimeUnit.MINUTES.toNanos(1))) {
            EpollPoller poller = (EpollPoller) spinning.createPoller();
            poller.register(source(), "never ready");
            CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> poller.poll(-1, x -> { }));
            await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(50)).until(() -> true);
            poller.wakeup();
            assertThat(polling).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(0);
            assertThat(poller.blockingWaits()).isZero();
            assertThat(poller.poll(0, x -> { })).as("the wake-up was consumed").isZero();
        }
    }

    @Test
    void aSpinningPollStillHonoursItsTimeout() {
        try (NativeFabric spinning = NativeFabric.detached(TimeUnit.MINUTES.toNanos(1))) {
            EpollPoller poller = (EpollPoller) spinning.createPoller();
            poller.register(source(), "never ready");
            long start = System.nanoTime();
            assertThat(poller.poll(TimeUnit.MILLISECONDS.toNanos(30), x -> { })).isZero();
            assertThat(System.nanoTime() - start).as("a timer is never run early")
                    .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(30));
            assertThat(poller.blockingWaits()).as("the spin covered the whole timeout").isZero();
            assertThat(poller.poll(0, x -> { })).as("a poll with timeout 0 does not spin").isZero();
        }
    }

    @Test
    void afterTheSpinAPollBlocksForTheRestOfItsTimeout() {
        try (NativeFabric spinning = NativeFabric.detached(TimeUnit.MILLISECONDS.toNanos(1))) {
            EpollPoller poller = (EpollPoller) spinning.createPoller();
            FdOf a = source();
            poller.register(a, "A");
            long start = System.nanoTime();
            assertThat(poller.poll(TimeUnit.MILLISECONDS.toNanos(50), x -> { })).isZero();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(poller.blockingWaits()).as("spun 1 ms, then blocked").isEqualTo(1);
            List<Object> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> poller.poll(-1, seen::add));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
                a.fd().signal();
                return polling.isDone();
            });
            assertThat(polling.join()).isEqualTo(1);
            assertThat(seen).containsExactly("A");
        }
    }

    @Test
    void anAdaptiveSpinOpensWhenASourceComesSoonAfterThePollBlockedAndClosesOnTimeouts() {
        try (NativeFabric adaptive = NativeFabric.detachedAdaptive(TimeUnit.SECONDS.toNanos(1))) {
            EpollPoller poller = (EpollPoller) adaptive.createPoller();
            assertThat(poller.spinNanos()).as("it starts by blocking at once").isZero();
            FdOf a = source();
            poller.register(a, "A");
            for (int i = 1; i <= 2; i++) {
                List<Object> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
                CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> poller.poll(-1, seen::add));
                await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(20)).until(() -> true);
                a.fd().signal();
                assertThat(polling).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(1);
                assertThat(poller.blockingWaits()).as("blocked, then the source came").isEqualTo(i);
                assertThat(poller.spinNanos()).as("window after wait " + i)
                        .isEqualTo(IdleSpin.GROW_START_NANOS << (i - 1));
                a.fd().drain();
            }
            assertThat(poller.poll(TimeUnit.MILLISECONDS.toNanos(5), x -> { })).isZero();
            assertThat(poller.spinNanos()).as("a timeout halves it").isEqualTo(IdleSpin.GROW_START_NANOS);
        }
    }

    @Test
    void withoutASpinTimeAPollBlocksAtOnceAsBefore() {
        EpollPoller poller = (EpollPoller) fabric.createPoller();
        assertThat(poller.spinNanos()).isZero();
        FdOf a = source();
        poller.register(a, "A");
        assertThat(poller.poll(0, x -> { })).isZero();
        assertThat(poller.blockingWaits()).isZero();
        List<Object> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        CompletableFuture<Integer> polling = CompletableFuture.supplyAsync(() -> poller.poll(-1, seen::add));
        await().atMost(Duration.ofSeconds(2)).pollDelay(Duration.ofMillis(50)).until(() -> true);
        a.fd().signal();
        assertThat(polling).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(1);
        assertThat(seen).containsExactly("A");
        assertThat(poller.blockingWaits()).as("straight into a blocking epoll_wait").isEqualTo(1);
        assertThatThrownBy(() -> new EpollPoller(fabric, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void timeoutsRoundUpToMilliseconds() {
        assertThat(EpollPoller.toMillis(-1)).isEqualTo(-1);
        assertThat(EpollPoller.toMillis(0)).isZero();
        assertThat(EpollPoller.toMillis(1)).isEqualTo(1);
        assertThat(EpollPoller.toMillis(1_000_000)).isEqualTo(1);
        assertThat(EpollPoller.toMillis(1_000_001)).isEqualTo(2);
        assertThat(EpollPoller.toMillis(Long.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    }
}
