package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ResourceKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * After load a loop gives back what it grew, on its own timer: idle pool slabs down to the minimum, and shared CQs
 * beyond the first once they have no QP — while a held buffer keeps its slab.
 */
class IdleReclaimTest {
    private static final Duration IDLE = Duration.ofMillis(300);
    private final ConnectionLoopbackTest t = new ConnectionLoopbackTest();

    @AfterEach
    void tearDown() {
        t.tearDown();
    }

    private LoopDevice device(EventLoop loop) throws Exception {
        return ConnectionLoopbackTest.on(loop, () -> loop.device(t.fabric.devices().get(0)));
    }

    private int slabs(EventLoop loop) throws Exception {
        LoopDevice d = device(loop);
        return ConnectionLoopbackTest.on(loop, () -> d.pool().slabs());
    }

    private int cqs(EventLoop loop) throws Exception {
        LoopDevice d = device(loop);
        return ConnectionLoopbackTest.on(loop, d::cqCount);
    }

    @Test
    void slabsAndSharedCqsGrownUnderLoadAreGivenBackOnceIdle() throws Exception {
        // receive windows of 8 in slabs of 8; CQs of 40 entries take two QPs (8 sends + 2 internal + 8 receives each)
        t.start(LoopOptions.DEFAULT.withLoops(1).withSrqDepth(0).withCqEntries(40).withQueueIdleTime(IDLE)
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(512).withSlabs(8, 512).withShrink(16, IDLE)));
        ConnectionOptions options = ConnectionOptions.DEFAULT.withSendQueueDepth(8).withReceiveWindow(8);
        t.listen(options, true);
        EventLoop loop = t.group.loops().get(0);
        List<Recorder> clients = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Recorder r = new Recorder();
            clients.add(r);
            connections.add(t.connect(r, null, options));
        }
        for (Recorder r : clients) {
            r.established.get(5, TimeUnit.SECONDS);
        }
        await().until(() -> t.fabric.count(ResourceKind.QUEUE_PAIR) == 20);
        t.server.hold = true;
        ConnectionLoopbackTest.send(connections.get(9), "held by the server", 1);
        await().until(() -> t.server.held.size() == 1);
        await().until(() -> slabs(loop) >= 20); // every window posted once both sides are established
        int slabsUnderLoad = slabs(loop);
        int cqsUnderLoad = cqs(loop);
        assertThat(slabsUnderLoad).as("20 windows of 8").isGreaterThanOrEqualTo(20);
        assertThat(cqsUnderLoad).as("two QPs per shared CQ").isGreaterThanOrEqualTo(10);
        assertThat(t.fabric.count(ResourceKind.MEMORY_REGION)).isEqualTo(slabsUnderLoad);

        for (Connection c : connections) {
            c.close();
        }
        for (Recorder r : clients) {
            r.closed.get(5, TimeUnit.SECONDS);
        }
        await().until(() -> t.fabric.count(ResourceKind.QUEUE_PAIR) == 0);
        long closed = System.nanoTime();
        await().until(() -> cqs(loop) == 1 && slabs(loop) == 2);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closed);
        assertThat(t.fabric.count(ResourceKind.COMPLETION_QUEUE)).as("the loop's first shared CQ stays").isEqualTo(1);
        Buffer held = t.server.held.get(0);
        LoopDevice d = device(loop);
        assertThat(ConnectionLoopbackTest.on(loop, () -> d.pool().buffer(held.index())))
                .as("the held buffer's slab stays").isSameAs(held);
        assertThat(ConnectionLoopbackTest.on(loop, () -> d.pool().allocated())).as("the minimum").isEqualTo(16);
        assertThat(tookMs).as("within a few idle times").isLessThan(IDLE.toMillis() * 10);
        assertThat(t.group.footprint()).isEqualTo(new dev.ibex.cm.loop.Footprint(2, 16 * 512, 16, 1, 1));

        held.release();
        t.server.held.clear();
        assertThat(slabs(loop)).isEqualTo(2);
        assertThat(t.fabric.count(ResourceKind.MEMORY_REGION)).isEqualTo(2);
        assertThat(t.fabric.violations()).as("CQ events acknowledged before destroy").isEmpty();
        assertThat(t.group.bufferLeaks()).isEmpty();

        // load again: the pool and CQs grow back and work
        Recorder again = new Recorder();
        Connection c = t.connect(again, null, options);
        again.established.get(5, TimeUnit.SECONDS);
        t.server.hold = false;
        ConnectionLoopbackTest.send(c, "after the shrink", 2);
        await().until(() -> t.server.messages.contains("after the shrink"));
        c.close();
        again.closed.get(5, TimeUnit.SECONDS);
    }

    /**
     * An SRQ refilled under load holds buffers from whatever slabs were free then: once no QP uses it for the idle
     * time it is destroyed, its buffers go back and their slabs with them; the next connection makes a new one.
     */
    @Test
    void anSrqNoQpUsesIsDestroyedAndItsBuffersComeBack() throws Exception {
        t.start(LoopOptions.DEFAULT.withLoops(1).withSrqDepth(32).withQueueIdleTime(IDLE)
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(512).withSlabs(8, 512).withShrink(8, IDLE)));
        t.listen(ConnectionOptions.DEFAULT, true);
        EventLoop loop = t.group.loops().get(0);
        Recorder client = new Recorder();
        Connection c = t.connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        Connection s = t.server.established.get(5, TimeUnit.SECONDS);
        assertThat(c.qp().srq()).isNotNull().isSameAs(s.qp().srq());
        // messages held while the SRQ refills: it takes buffers from higher slabs
        t.server.hold = true;
        for (int i = 0; i < 20; i++) {
            ConnectionLoopbackTest.send(c, "held " + i, i);
        }
        await().until(() -> t.server.held.size() == 20);
        t.server.held.forEach(Buffer::release);
        t.server.held.clear();
        await().until(() -> slabs(loop) >= 4);
        int slabsUnderLoad = slabs(loop);
        assertThat(slabsUnderLoad).as("32 posted in slabs of 8, pinned while the SRQ lives").isGreaterThanOrEqualTo(4);
        assertThat(t.fabric.count(ResourceKind.SHARED_RECEIVE_QUEUE)).isEqualTo(1);

        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        t.server.closed.get(5, TimeUnit.SECONDS);
        await().until(() -> t.fabric.count(ResourceKind.QUEUE_PAIR) == 0);
        await().until(() -> t.fabric.count(ResourceKind.SHARED_RECEIVE_QUEUE) == 0 && slabs(loop) == 1);
        assertThat(t.group.footprint().buffersInUse()).as("the SRQ's buffers came back").isZero();
        assertThat(t.group.bufferLeaks()).isEmpty();

        Recorder again = new Recorder();
        Connection c2 = t.connect(again, null, ConnectionOptions.DEFAULT);
        again.established.get(5, TimeUnit.SECONDS);
        assertThat(t.fabric.count(ResourceKind.SHARED_RECEIVE_QUEUE)).as("made again on next use").isEqualTo(1);
        t.server.hold = false;
        ConnectionLoopbackTest.send(c2, "after the SRQ went", 99);
        await().until(() -> t.server.messages.contains("after the SRQ went"));
        c2.close();
        again.closed.get(5, TimeUnit.SECONDS);
    }
}
