package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.QueuePair;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A device's async events reach listeners through the fabric's event executor, but only the types a listener asked
 * for: every hand-off wakes the executor's thread, and a connection's teardown raises QP_LAST_WQE_REACHED, which the
 * CM does not listen to (a wake-up per connection side before). The loop's queue still gets every event.
 */
class AsyncEventListenersTest {
    /** Runs hand-offs at once on the caller, counting them. */
    final List<Runnable> handedOff = new ArrayList<>();
    final Executor executor = r -> {
        handedOff.add(r);
        r.run();
    };
    final SoftAsyncEvents events = new SoftAsyncEvents(null, executor);
    final List<AsyncEventType> seen = new ArrayList<>();

    @Test
    void anEventNoListenerAskedForIsQueuedButNotHandedToTheExecutor() {
        events.addListener(EnumSet.of(AsyncEventType.COMM_EST), e -> seen.add(e.type()));

        events.raise(AsyncEventType.QP_LAST_WQE_REACHED, (QueuePair) null);

        assertThat(handedOff).isEmpty();
        assertThat(seen).isEmpty();
        assertThat(events.poll()).extracting(AsyncEvent::type).isEqualTo(AsyncEventType.QP_LAST_WQE_REACHED);

        events.raise(AsyncEventType.COMM_EST, (QueuePair) null);

        assertThat(handedOff).hasSize(1);
        assertThat(seen).containsExactly(AsyncEventType.COMM_EST);
        assertThat(events.poll()).extracting(AsyncEvent::type).isEqualTo(AsyncEventType.COMM_EST);
    }

    @Test
    void eachListenerSeesOnlyItsTypesAndAPlainListenerSeesEverything() {
        List<AsyncEventType> all = new ArrayList<>();
        events.addListener(EnumSet.of(AsyncEventType.PATH_MIG), e -> seen.add(e.type()));
        events.addListener(e -> all.add(e.type()));

        events.raise(AsyncEventType.QP_LAST_WQE_REACHED, (QueuePair) null);
        events.raise(AsyncEventType.PATH_MIG, (QueuePair) null);

        assertThat(seen).containsExactly(AsyncEventType.PATH_MIG);
        assertThat(all).containsExactly(AsyncEventType.QP_LAST_WQE_REACHED, AsyncEventType.PATH_MIG);
    }

    @Test
    void aRemovedListenerIsNoLongerHandedEvents() {
        java.util.function.Consumer<AsyncEvent> l = e -> seen.add(e.type());
        events.addListener(EnumSet.of(AsyncEventType.COMM_EST), l);
        events.removeListener(l);

        events.raise(AsyncEventType.COMM_EST, (QueuePair) null);

        assertThat(handedOff).isEmpty();
        assertThat(seen).isEmpty();
    }
}
