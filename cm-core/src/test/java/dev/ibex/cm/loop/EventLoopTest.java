package dev.ibex.cm.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.ibex.cm.fake.Eventually.await;

import dev.ibex.cm.fake.FakeCq;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.FakePoller;
import dev.ibex.cm.fake.FakeProvider;
import dev.ibex.cm.fake.LoopBlockHound;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;

class EventLoopTest {
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private FakeFabric fabric;
    private EventLoopGroup group;

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    private EventLoopGroup group(int loops) {
        fabric = FakeFabric.scripted();
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(loops).withCloseTimeout(Duration.ofSeconds(2))
                .withUncaughtHandler(uncaught::add));
        return group;
    }

    @AfterEach
    void close() {
        if (group != null) {
            group.close();
            assertThat(fabric.violations()).isEmpty();
            fabric.close();
        }
    }

    private static <T> T on(EventLoop loop, java.util.concurrent.Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    @Test
    void executeFromAnotherThreadWakesAnIdleLoop() throws Exception {
        EventLoop loop = group(1).next();
        FakePoller poller = fabric.pollers().get(0);
        await().until(() -> loop.thread().getState() == Thread.State.WAITING);
        CountDownLatch ran = new CountDownLatch(1);
        loop.execute(ran::countDown);
        assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(poller.wakeups()).isPositive();
        assertThat(loop.inEventLoop()).isFalse();
        assertThat(on(loop, loop::inEventLoop)).isTrue();
    }

    @Test
    void tasksFromOneThreadRunInSubmissionOrder() throws Exception {
        EventLoop loop = group(1).next();
        List<Integer> order = new ArrayList<>(); // loop-confined
        for (int i = 0; i < 10_000; i++) {
            int n = i;
            loop.execute(() -> order.add(n));
        }
        List<Integer> seen = on(loop, () -> new ArrayList<>(order));
        assertThat(seen).hasSize(10_000).isSorted();
    }

    @Test
    void timersRunOnTheLoopInDeadlineOrderAndCancelledOnesNever() throws Exception {
        EventLoop loop = group(1).next();
        List<String> fired = new CopyOnWriteArrayList<>();
        List<Boolean> onLoop = new CopyOnWriteArrayList<>();
        // Scheduled together: deadlines 200 ms apart decide the order even on a loaded 2-core machine.
        ScheduledTask cancelled = on(loop, () -> {
            loop.schedule(() -> fired.add("600"), 600, TimeUnit.MILLISECONDS);
            loop.schedule(() -> fired.add("200"), 200, TimeUnit.MILLISECONDS);
            ScheduledTask never = loop.schedule(() -> fired.add("never"), 500, TimeUnit.MILLISECONDS);
            loop.schedule(() -> fired.add("400"), 400, TimeUnit.MILLISECONDS);
            return never;
        });
        cancelled.cancel(); // from another thread, well before its deadline
        for (int i = 0; i < 200; i++) {
            loop.schedule(() -> onLoop.add(loop.inEventLoop()), 5, TimeUnit.MILLISECONDS);
        }
        await().until(() -> fired.size() == 3 && onLoop.size() == 200);
        assertThat(fired).containsExactly("200", "400", "600");
        assertThat(onLoop).containsOnly(true);
        assertThat(cancelled.isCancelled()).isTrue();
    }

    @Test
    void timersWithTheSameDeadlineRunInSchedulingOrder() throws Exception {
        EventLoop loop = group(1).next();
        List<Integer> fired = new CopyOnWriteArrayList<>();
        on(loop, () -> {
            for (int i = 0; i < 50; i++) {
                int n = i;
                loop.schedule(() -> fired.add(n), 0, TimeUnit.MILLISECONDS);
            }
            return null;
        });
        await().until(() -> fired.size() == 50);
        assertThat(fired).isSorted();
    }

    /** Two CQs on one loop with their own recording endpoints. */
    private record TwoCqs(FakeCq a, FakeCq b, RecordingEndpoint ea, RecordingEndpoint eb, LoopDevice device) {}

    private TwoCqs twoCqs(EventLoop loop, int entries) throws Exception {
        return on(loop, () -> {
            LoopDevice d = loop.device(fabric.devices().get(0));
            RecordingEndpoint ea = new RecordingEndpoint(loop, d.context());
            RecordingEndpoint eb = new RecordingEndpoint(loop, d.context());
            ea.handle = loop.register(ea);
            eb.handle = loop.register(eb);
            return new TwoCqs((FakeCq) d.createCq(entries), (FakeCq) d.createCq(entries), ea, eb, d);
        });
    }

    private static void push(FakeCq cq, RecordingEndpoint e, int slot) {
        cq.complete(WrId.encode(WrId.FIRST_ENDPOINT_KIND, e.handle, slot), WcStatus.SUCCESS, WcOpcode.SEND, 0, 1);
    }

    @Test
    void aFloodingCqDoesNotStarveAnother() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 20_000);
        int budget = loop.options().completionBudget();
        on(loop, () -> { // queued together, so both are ready in the same turn
            for (int i = 0; i < 10_000; i++) {
                push(t.a(), t.ea(), i);
            }
            push(t.b(), t.eb(), 0);
            return null;
        });
        await().until(() -> t.ea().completionOrder.size() == 10_000
                && t.eb().completionOrder.size() == 1);
        int firstA = t.ea().completionOrder.get(0);
        int b = t.eb().completionOrder.get(0);
        assertThat(b - firstA).as("completions of the flooding CQ delivered before the other CQ's one")
                .isLessThanOrEqualTo(budget);
        assertThat(t.ea().seen()).extracting(RecordingEndpoint.Seen::value)
                .as("one CQ's completions keep their order").isSorted();
    }

    @Test
    void aCompletionArrivingRightAfterTheCqWasDrainedIsNotLost() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 64);
        for (int i = 0; i < 20; i++) {
            int n = 2 * i + 1;
            t.a().afterNextDrain(() -> push(t.a(), t.ea(), n));
            push(t.a(), t.ea(), n - 1);
            await().until(() -> t.ea().completionOrder.size() == n + 1);
        }
    }

    @Test
    void aLoopThatSpinsOnItsCqsSeesACompletionWhoseEventHasNotCome() throws Exception {
        EventLoop loop = spinningLoop(Duration.ofSeconds(30));
        TwoCqs t = twoCqs(loop, 64);
        for (int i = 0; i < 3; i++) { // after each delivery the loop spins again
            t.a().completeWithoutEvent(WrId.encode(WrId.FIRST_ENDPOINT_KIND, t.ea().handle, i), WcStatus.SUCCESS,
                    WcOpcode.SEND);
            int n = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == n);
        }
        assertThat(uncaught).isEmpty();
    }

    /**
     * A loop that spins on its CQs leaves a CQ unarmed after its notification, so later completions raise no event
     * (no channel read, ack and re-arm per completion, which is what a busy-polling C program saves); it still reads
     * each of them while spinning.
     */
    @Test
    void aSpinningLoopLeavesItsCqsUnarmedAndStillReadsThem() throws Exception {
        EventLoop loop = spinningLoop(Duration.ofSeconds(30));
        TwoCqs t = twoCqs(loop, 64);
        push(t.a(), t.ea(), 0); // armed: this one raises an event, which the spin's look at the poller takes
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 1 && !t.a().isArmed());
        for (int i = 1; i <= 3; i++) {
            push(t.a(), t.ea(), i); // unarmed: no event; the spin reads it
            int n = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == n);
        }
        assertThat(t.a().isArmed()).as("still unarmed while the loop spins").isFalse();
        assertThat(uncaught).isEmpty();
    }

    /**
     * Before it blocks, a loop that spun arms its CQs again and polls each once: a completion that comes after the spin
     * ended raises its event and is read.
     */
    @Test
    void aLoopArmsItsCqsAgainBeforeItBlocksAfterASpin() throws Exception {
        EventLoop loop = spinningLoop(Duration.ofMillis(50));
        TwoCqs t = twoCqs(loop, 64);
        push(t.a(), t.ea(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> t.a().isArmed()); // the spin ended: armed before blocking
        Thread.sleep(100); // blocked by now
        push(t.a(), t.ea(), 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 2);
        assertThat(uncaught).isEmpty();
    }

    /**
     * A spinning loop kept busy by tasks (so it never spins or blocks) still reads a CQ a notification left unarmed:
     * it polls such CQs on every busy turn.
     */
    @Test
    void aBusySpinningLoopStillReadsItsUnarmedCqs() throws Exception {
        EventLoop loop = spinningLoop(Duration.ofSeconds(30));
        TwoCqs t = twoCqs(loop, 64);
        push(t.a(), t.ea(), 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 1 && !t.a().isArmed());
        java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean(true);
        Runnable[] again = new Runnable[1];
        again[0] = () -> {
            if (busy.get()) {
                loop.execute(again[0]); // a task every turn: the loop's wait never blocks nor spins
            }
        };
        loop.execute(again[0]);
        try {
            push(t.a(), t.ea(), 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 2);
        } finally {
            busy.set(false);
        }
        assertThat(uncaught).isEmpty();
    }

    /** One loop on a scripted fake that busy-polls its CQs for {@code spin} before blocking. */
    private EventLoop spinningLoop(Duration spin) {
        return spinningLoop(spin, LoopOptions.DEFAULT.cqPollSpinLookInterval());
    }

    /** {@link #spinningLoop(Duration)} looking at its poller and clock every {@code lookInterval} rounds. */
    private EventLoop spinningLoop(Duration spin, int lookInterval) {
        fabric = FakeFabric.scripted();
        group = EventLoopGroup.of(fabric, LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(2))
                .withUncaughtHandler(uncaught::add).withCqPollSpin(spin).withCqPollSpinLookInterval(lookInterval));
        return group.next();
    }

    /**
     * A spinning loop polls its poller without waiting (an {@code epoll_wait} on rdma-core) once every
     * {@code cqPollSpinLookInterval} rounds of CQ polls, not every 16 whatever the setting.
     */
    @Test
    void aSpinningLoopLooksAtItsPollerOnceEveryLookInterval() throws Exception {
        int interval = 256;
        EventLoop loop = spinningLoop(Duration.ofSeconds(30), interval);
        TwoCqs t = twoCqs(loop, 64);
        FakePoller poller = fabric.pollers().get(0);
        on(loop, () -> null);
        Thread.sleep(100); // spinning, idle
        long rounds0 = t.a().polls();
        long looks0 = poller.nonWaitingPolls();
        Thread.sleep(400);
        long looks = poller.nonWaitingPolls() - looks0;
        long rounds = t.a().polls() - rounds0; // read after the looks: at most one interval more
        assertThat(looks).as("looks in 400 ms of spinning (%d rounds)", rounds).isGreaterThan(20);
        assertThat((double) rounds / looks).isBetween(interval * 0.9, interval * 1.2);
        assertThat(uncaught).isEmpty();
    }

    /**
     * With the longest look interval a spinning loop still takes a CQ's event (its look at the poller) and still ends
     * its spin (its look at the clock): both come within the interval's rounds.
     */
    @Test
    void aSpinningLoopWithTheLongestLookIntervalStillSeesItsSourcesAndItsDeadline() throws Exception {
        EventLoop loop = spinningLoop(Duration.ofMillis(50), 1 << 20);
        TwoCqs t = twoCqs(loop, 64);
        push(t.a(), t.ea(), 0); // armed: its event comes through the poller
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> t.a().isArmed()); // the spin ended: armed before blocking
        assertThat(uncaught).isEmpty();
    }

    @Test
    void theLookIntervalIsChecked() {
        assertThat(LoopOptions.DEFAULT.cqPollSpinLookInterval()).isEqualTo(16);
        assertThat(LoopOptions.DEFAULT.withCqPollSpinLookInterval(1).cqPollSpinLookInterval()).isEqualTo(1);
        assertThat(LoopOptions.DEFAULT.withCqPollSpinLookInterval(1 << 20).withLoops(2).cqPollSpinLookInterval())
                .isEqualTo(1 << 20);
        assertThatThrownBy(() -> LoopOptions.DEFAULT.withCqPollSpinLookInterval(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LoopOptions.DEFAULT.withCqPollSpinLookInterval((1 << 20) + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLoopThatDoesNotSpinWaitsForTheCqEvent() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 64);
        on(loop, () -> null); // a turn later: the new CQs' first poll (they were empty) is done
        t.a().completeWithoutEvent(WrId.encode(WrId.FIRST_ENDPOINT_KIND, t.ea().handle, 0), WcStatus.SUCCESS,
                WcOpcode.SEND);
        Thread.sleep(300); // the default never spins: without an event nothing reads the CQ
        assertThat(t.ea().completionOrder).isEmpty();
        push(t.a(), t.ea(), 1); // the next completion's event: both are read
        await().atMost(Duration.ofSeconds(10)).until(() -> t.ea().completionOrder.size() == 2);
    }

    @Test
    void noNotificationIsLostUnderAFlood() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 200_000);
        int total = 50_000;
        Thread producer = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < total; i++) {
                push(t.a(), t.ea(), i);
                if ((i & 127) == 0) {
                    Thread.yield(); // let the loop catch up, empty the CQ and re-arm in between
                }
            }
        });
        producer.join(20_000);
        await().until(() -> t.ea().completionOrder.size() == total);
        assertThat(t.a().size()).isZero();
    }

    @Test
    void cqEventsAreAcknowledgedBeforeTheCqIsDestroyed() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 64);
        for (int i = 0; i < 5; i++) { // five separate notifications, fewer than an ack batch
            push(t.a(), t.ea(), i);
            int n = i + 1;
            await().until(() -> t.ea().completionOrder.size() == n && t.a().isArmed());
        }
        assertThat(t.a().unacked()).isEqualTo(5);
        on(loop, () -> {
            t.device().destroyCq(t.a());
            return null;
        });
        assertThat(t.a().unacked()).isZero();
        assertThat(fabric.violations()).isEmpty();
    }

    @Test
    void theFakeCatchesACqDestroyedWithUnacknowledgedEvents() throws Exception {
        EventLoop loop = group(1).next();
        TwoCqs t = twoCqs(loop, 64);
        push(t.a(), t.ea(), 0);
        await().until(() -> t.ea().completionOrder.size() == 1);
        on(loop, () -> {
            t.a().close(); // bypassing LoopDevice.destroyCq
            return null;
        });
        assertThat(fabric.violations()).singleElement().asString().contains("unacknowledged events");
        group.close();
        fabric.close();
        group = null;
    }

    @Test
    void blockingCallsOnALoopThreadAreCaught() throws Exception {
        EventLoop loop = group(1).next();
        CompletableFuture<Throwable> caught = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                Thread.sleep(1);
                caught.complete(null);
            } catch (Throwable t) {
                caught.complete(t);
            }
        });
        assertThat(caught.get(5, TimeUnit.SECONDS)).isInstanceOf(BlockingOperationError.class);
        loop.execute(() -> {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().until(() -> !uncaught.isEmpty());
        assertThat(uncaught.get(0)).isInstanceOf(BlockingOperationError.class);
        uncaught.clear();
        // the loop survives its tasks' failures
        assertThat(on(loop, () -> "alive")).isEqualTo("alive");
    }

    @Test
    void asyncEventsReachTheLoopOwningTheEndpoint() throws Exception {
        group(2);
        EventLoop other = group.loops().get(1);
        var device = fabric.device(0);
        RecordingEndpoint ep = on(other, () -> {
            LoopDevice d = other.device(device);
            RecordingEndpoint e = new RecordingEndpoint(other, device);
            e.handle = other.register(e);
            return e;
        });
        RecordingEndpoint onFirst = on(group.loops().get(0), () -> {
            EventLoop l = group.loops().get(0);
            RecordingEndpoint e = new RecordingEndpoint(l, device);
            e.handle = l.register(e);
            return e;
        });
        QueuePair qp = on(other, () -> {
            LoopDevice d = other.device(device);
            CompletionQueue cq = d.sharedCq();
            return d.pd().createQueuePair(new QpInitAttr(cq, cq, null, new QpCap(4, 4, 1, 1, 0), QpType.RC, false,
                    ep));
        });
        fabric.raise(new AsyncEvent(AsyncEventType.QP_FATAL, device, qp, null, null, 0));
        fabric.raise(new AsyncEvent(AsyncEventType.PORT_ERR, device, null, null, null, 1));
        await().until(() -> ep.count("async") == 2 && onFirst.count("async") == 1);
        assertThat(ep.seen()).extracting(RecordingEndpoint.Seen::thread).containsOnly(other.thread());
        assertThat(onFirst.seen()).extracting(RecordingEndpoint.Seen::what).containsExactly("async PORT_ERR");
        on(other, () -> {
            qp.close();
            return null;
        });
    }

    @Test
    void closeTearsDownEveryLoopResourceInOrderAndJoinsTheThreads() throws Exception {
        group(3);
        for (EventLoop l : group.loops()) {
            on(l, () -> {
                l.device(fabric.device(0)).pool().acquire().release();
                return l.device(fabric.device(1));
            });
        }
        assertThat(fabric.count(ResourceKind.PROTECTION_DOMAIN)).isEqualTo(6);
        assertThat(fabric.count(ResourceKind.EVENT_CHANNEL)).isEqualTo(3);
        group.close();
        assertThat(group.loops()).allSatisfy(l -> assertThat(l.thread().isAlive()).isFalse());
        assertThat(group.terminationFuture()).isCompleted();
        assertThat(fabric.resources().total()).as(fabric.resources().toString()).isZero();
        assertThat(fabric.violations()).isEmpty();
        assertThatThrownBy(() -> group.next().execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
        fabric.close();
        group = null;
    }

    @Test
    void aGroupOpenedByProviderNameOwnsAndClosesItsFabric() {
        AtomicInteger loops = new AtomicInteger();
        try (EventLoopGroup g = EventLoopGroup.open(FakeProvider.NAME, ProviderConfig.DEFAULT,
                LoopOptions.DEFAULT.withLoops(2))) {
            loops.set(g.loops().size());
            assertThat(g.fabric().providerName()).isEqualTo("fake");
            g.close();
            assertThat(g.fabric().resources().total()).isZero();
            assertThatThrownBy(() -> g.fabric().createPoller()).isInstanceOf(IllegalStateException.class);
        }
        assertThat(loops.get()).isEqualTo(2);
    }
}
