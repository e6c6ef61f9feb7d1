package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLLET;
import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLLIN;
import static dev.ibex.verbs.ffi.constant.EpollFlags.EPOLLOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.constant.EventFdFlags;
import dev.ibex.verbs.ffi.struct.EpollEvent;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The epoll and eventfd wrappers against the real kernel. */
class EpollTest {
    private static final long COOKIE = 0x1BE7_0000_0000_0042L;

    private Arena arena;
    private Epoll epoll;
    private EventFd wakeup;
    private MemorySegment events;

    @BeforeEach
    void open() {
        arena = Arena.ofConfined();
        epoll = Epoll.create();
        wakeup = EventFd.create();
        events = Epoll.allocateEvents(arena, 8);
    }

    @AfterEach
    void close() {
        wakeup.close();
        epoll.close();
        arena.close();
    }

    @Test
    void anEventFdBecomesReadableWhenSignalledAndCarriesItsData() {
        epoll.add(wakeup.fd(), EPOLLIN, COOKIE);
        assertThat(epoll.waitFor(events, 8, 0)).as("nothing signalled yet").isZero();

        wakeup.signal();
        assertThat(epoll.waitFor(events, 8, 0)).isEqualTo(1);
        assertThat(EpollEvent.events(events, 0) & EPOLLIN).isNotZero();
        assertThat(EpollEvent.data(events, 0)).isEqualTo(COOKIE);
    }

    @Test
    void levelTriggeredStaysReadyUntilDrained() {
        epoll.add(wakeup.fd(), EPOLLIN, 1);
        wakeup.signal();
        wakeup.add(4);
        assertThat(epoll.waitFor(events, 8, 0)).isEqualTo(1);
        assertThat(epoll.waitFor(events, 8, 0)).as("still readable: not drained").isEqualTo(1);

        assertThat(wakeup.drain()).isEqualTo(5);
        assertThat(epoll.waitFor(events, 8, 0)).as("drained").isZero();
    }

    @Test
    void edgeTriggeredReportsOnlyNewSignals() {
        epoll.add(wakeup.fd(), EPOLLIN | EPOLLET, 1);
        wakeup.signal();
        assertThat(epoll.waitFor(events, 8, 0)).isEqualTo(1);
        assertThat(epoll.waitFor(events, 8, 0)).as("edge already reported").isZero();
        wakeup.signal();
        assertThat(epoll.waitFor(events, 8, 0)).isEqualTo(1);
    }

    @Test
    void anotherThreadWakesABlockedWait() throws Exception {
        epoll.add(wakeup.fd(), EPOLLIN, COOKIE);
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Long> woke = CompletableFuture.supplyAsync(() -> {
            try (Arena local = Arena.ofConfined()) {
                MemorySegment ready = Epoll.allocateEvents(local, 4);
                waiting.countDown();
                int n = epoll.waitFor(ready, 4, 30_000);
                return n == 1 ? EpollEvent.data(ready, 0) : -n;
            }
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        wakeup.signal();
        assertThat(woke.get(10, TimeUnit.SECONDS)).isEqualTo(COOKIE);
    }

    @Test
    void nonBlockingReadsReportWouldBlock() {
        assertThat(wakeup.drain()).as("empty counter").isZero();
        MemorySegment buf = arena.allocate(8);
        assertThat(LibC.read(wakeup.fd(), buf)).isEqualTo(LibC.WOULD_BLOCK);
        assertThat(LibC.isNonBlocking(wakeup.fd())).isTrue();

        wakeup.add(7);
        assertThat(LibC.read(wakeup.fd(), buf)).isEqualTo(8);
        assertThat(buf.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(7);
    }

    @Test
    void semaphoreModeCountsDownOneAtATime() {
        try (EventFd sem = EventFd.create(2, EventFdFlags.EFD_SEMAPHORE | EventFdFlags.EFD_NONBLOCK)) {
            assertThat(sem.drain()).isEqualTo(1);
            assertThat(sem.drain()).isEqualTo(1);
            assertThat(sem.drain()).isZero();
        }
    }

    @Test
    void setNonBlockingTurnsABlockingFdNonBlocking() {
        try (EventFd blocking = EventFd.create(0, EventFdFlags.EFD_CLOEXEC)) {
            assertThat(LibC.isNonBlocking(blocking.fd())).isFalse();
            LibC.setNonBlocking(blocking.fd());
            assertThat(LibC.isNonBlocking(blocking.fd())).isTrue();
            assertThat(blocking.drain()).as("would block instead of hanging").isZero();
        }
    }

    @Test
    void modifyAndRemoveChangeWhatIsReported() {
        epoll.add(wakeup.fd(), EPOLLIN, 1);
        epoll.modify(wakeup.fd(), EPOLLOUT, 2);
        assertThat(epoll.waitFor(events, 8, 0)).as("an eventfd is always writable").isEqualTo(1);
        assertThat(EpollEvent.data(events, 0)).isEqualTo(2);
        assertThat(EpollEvent.events(events, 0) & EPOLLOUT).isNotZero();
        epoll.remove(wakeup.fd());
        wakeup.signal();
        assertThat(epoll.waitFor(events, 8, 0)).isZero();
    }

    @Test
    void kernelErrorsBecomeTypedExceptions() {
        epoll.add(wakeup.fd(), EPOLLIN, 1);
        assertThatThrownBy(() -> epoll.add(wakeup.fd(), EPOLLIN, 1))
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.verb()).isEqualTo("epoll_ctl");
                    assertThat(e.errno()).isEqualTo(Errno.EEXIST);
                });
        assertThatThrownBy(() -> LibC.close(-5))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EBADF));
        assertThatThrownBy(() -> epoll.waitFor(events, 9, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closedInstancesThrowIllegalStateAndCloseIsIdempotent() {
        EventFd e = EventFd.create();
        Epoll p = Epoll.create();
        e.close();
        e.close();
        p.close();
        p.close();
        assertThatThrownBy(e::signal).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(e::fd).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> p.waitFor(events, 8, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> p.add(wakeup.fd(), EPOLLIN, 0)).isInstanceOf(IllegalStateException.class);
    }
}
