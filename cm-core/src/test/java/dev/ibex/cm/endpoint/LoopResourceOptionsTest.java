package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.spi.ResourceKind;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The loop's resource options: a CQ per connection, and a shared receive queue. */
class LoopResourceOptionsTest {
    private final ConnectionLoopbackTest t = new ConnectionLoopbackTest();

    @AfterEach
    void tearDown() {
        t.tearDown();
    }

    @Test
    void aCqPerConnectionIsCreatedAndDestroyedWithItsConnection() throws Exception {
        t.start(dev.ibex.cm.loop.LoopOptions.DEFAULT.withLoops(3).withPerConnectionCq(true));
        t.listen(ConnectionOptions.DEFAULT, true);
        int cqsBefore = t.fabric.count(ResourceKind.COMPLETION_QUEUE);
        Recorder client = new Recorder();
        Connection c = t.connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        Connection s = t.server.established.get(5, TimeUnit.SECONDS);
        assertThat(c.qp().sendCq()).isNotSameAs(s.qp().sendCq());
        ConnectionLoopbackTest.send(c, "own cq", 1);
        await().until(() -> t.server.messages.contains("own cq"));
        int during = t.fabric.count(ResourceKind.COMPLETION_QUEUE);
        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        t.server.closed.get(5, TimeUnit.SECONDS);
        assertThat(t.fabric.count(ResourceKind.COMPLETION_QUEUE)).isEqualTo(during - 2);
        assertThat(t.fabric.violations()).as("CQ events acknowledged before destroy").isEmpty();
        assertThat(during).isEqualTo(cqsBefore + 2 + 2).as("two shared CQs (one per loop device) and two own CQs");
    }

    @Test
    void aSharedReceiveQueueFeedsEveryConnectionAndIsRefilledWhileMessagesAreHeld() throws Exception {
        t.start(dev.ibex.cm.loop.LoopOptions.DEFAULT.withLoops(1).withSrqDepth(8));
        t.listen(ConnectionOptions.DEFAULT, true);
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Connection ca = t.connect(a, null, ConnectionOptions.DEFAULT);
        Connection cb = t.connect(b, null, ConnectionOptions.DEFAULT);
        a.established.get(5, TimeUnit.SECONDS);
        b.established.get(5, TimeUnit.SECONDS);
        assertThat(t.fabric.count(ResourceKind.SHARED_RECEIVE_QUEUE)).isEqualTo(1);
        assertThat(ca.qp().srq()).isSameAs(cb.qp().srq()).isNotNull();
        t.server.hold = true;
        ConnectionLoopbackTest.send(ca, "to a's peer", 1);
        ConnectionLoopbackTest.send(cb, "to b's peer", 2);
        await().until(() -> t.server.messages.size() == 2);
        assertThat(t.server.held).as("both used the SRQ, and the application holds both").hasSize(2);
        // the SRQ is kept filled to what its four QPs (two clients, two children) granted, beyond the configured
        // least depth of 8, plus a refill batch (an eighth of 8); consumption drives the refill (from the pool), not
        // the release: the queue is full again while both are held
        int target = 4 * ConnectionOptions.DEFAULT.receiveWindow() + 1;
        await().until(() -> ((dev.ibex.cm.fake.FakeQp) ca.qp()).postedReceives() == target);
        List<Buffer> held = List.copyOf(t.server.held);
        t.server.held.clear();
        held.forEach(Buffer::release);
        ConnectionLoopbackTest.send(ca, "again", 3);
        await().until(() -> t.server.messages.size() == 3);
        await().until(() -> ((dev.ibex.cm.fake.FakeQp) ca.qp()).postedReceives() == target);
        t.server.held.forEach(Buffer::release);
        ca.close();
        cb.close();
        a.closed.get(5, TimeUnit.SECONDS);
        b.closed.get(5, TimeUnit.SECONDS);
        await().until(() -> t.fabric.count(ResourceKind.QUEUE_PAIR) == 0); // the server side drains on its own
    }
}
