package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.fake.FakeCmId;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.ResourceKind;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Closing a connection in every state releases everything it created, in order, and reports it closed once. */
class TeardownTest {

    @ParameterizedTest
    @EnumSource(value = ConnectionState.class, names = "REQUESTED", mode = EnumSource.Mode.EXCLUDE)
    void closingInEveryStateReleasesEverything(ConnectionState state) throws Exception {
        try (ScriptedGroup g = new ScriptedGroup(1)) {
            EventLoop loop = g.loop(0);
            Recorder r = new Recorder();
            // a window of its own, so that DISCONNECTING lasts until the posted receives flush
            ConnectionOptions options = ConnectionOptions.DEFAULT.withDrainTimeout(Duration.ofMillis(50))
                    .withReceiveMode(ReceiveMode.WINDOW);
            Connection c = g.on(loop, () -> {
                Connection x = Connection.idle(loop, new InetSocketAddress("10.0.0.1", 1), options, r);
                Input[] path = {Input.START, Input.ADDR_RESOLVED, Input.ROUTE_RESOLVED, Input.ESTABLISHED, Input.CLOSE};
                int steps = switch (state) {
                    case IDLE -> 0;
                    case ADDR_RESOLVING -> 1;
                    case ROUTE_RESOLVING -> 2;
                    case CONNECTING -> 3;
                    case ESTABLISHED -> 4;
                    case DISCONNECTING -> 5;
                    case CLOSED -> 0;
                    default -> throw new AssertionError();
                };
                for (int i = 0; i < steps; i++) {
                    Input in = path[i];
                    x.input(in, in.isCmEvent() ? new CmEvent(CmEventType.values()[in.ordinal()], x.cmId(), null, 0,
                            null, ConnParam.DEFAULT, null, null) : null);
                }
                if (state == ConnectionState.ESTABLISHED) { // work in flight that the scripted fake never completes
                    Buffer b = x.allocate();
                    x.send(b, 10, 1);
                    x.flush();
                }
                if (state == ConnectionState.CLOSED) {
                    x.close();
                }
                return x;
            });
            assertThat(c.state()).isEqualTo(state);
            c.close();
            r.closed.get(5, TimeUnit.SECONDS);
            assertThat(c.state()).isEqualTo(ConnectionState.CLOSED);
            assertThat(g.fabric.count(ResourceKind.QUEUE_PAIR)).isZero();
            assertThat(g.fabric.count(ResourceKind.CM_ID)).isZero();
            assertThat(g.group.bufferLeaks()).isEmpty();
            assertThat(r.events().stream().filter("closed"::equals)).hasSize(1);
            if (state == ConnectionState.ESTABLISHED) {
                assertThat(r.failures).singleElement().isInstanceOfSatisfying(WorkCompletionException.class,
                        w -> assertThat(w.isFlush()).isTrue());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Side.class)
    void closingWithTrafficInFlightOverLoopbackFlushesAndReleasesEverything(Side who) throws Exception {
        ConnectionLoopbackTest t = new ConnectionLoopbackTest();
        t.start();
        ConnectionOptions windowed = ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW);
        t.listen(windowed.withReceiveWindow(2), true); // receives that run out: sends wait for RNR in the QP
        Recorder client = new Recorder();
        Connection c = t.connect(client, null, windowed);
        Connection s = t.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        t.server.hold = true;
        for (int i = 0; i < 5; i++) {
            ConnectionLoopbackTest.send(c, "x" + i, i);
        }
        await().until(() -> ((FakeQp) c.qp()).blockedSends() == 3 && t.server.messages.size() == 2);
        switch (who) {
            case CLIENT -> c.close();
            case SERVER -> s.close();
            case GROUP -> t.group.close();
        }
        client.closed.get(5, TimeUnit.SECONDS);
        t.server.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.completed.size() + client.failures.size()).as("every operation accounted for").isEqualTo(5);
        assertThat(client.failures).hasSize(3).allSatisfy(f -> assertThat(((WorkCompletionException) f).isFlush())
                .isTrue());
        List<Buffer> held = List.copyOf(t.server.held);
        held.forEach(Buffer::release); // the application may release after close
        assertThat(t.fabric.count(ResourceKind.QUEUE_PAIR)).isZero();
        if (who != Side.GROUP) {
            assertThat(t.group.bufferLeaks()).isEmpty();
            assertThat(t.fabric.count(ResourceKind.CM_ID)).as("the listener's id").isEqualTo(1);
        }
        t.tearDown();
    }

    enum Side { CLIENT, SERVER, GROUP }

    @ParameterizedTest
    @EnumSource(value = Side.class, names = {"CLIENT", "GROUP"})
    void anAcceptedConnectionMovesToAnotherLoopAndLivesThere(Side unused) throws Exception {
        ConnectionLoopbackTest t = new ConnectionLoopbackTest();
        t.start();
        t.listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        t.connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = t.server.established.get(5, TimeUnit.SECONDS);
        EventLoop listenerLoop = t.listenerLoop();
        assertThat(s.loop()).isNotSameAs(listenerLoop);
        assertThat(((FakeCmId) s.cmId()).currentChannel()).as("the id was migrated")
                .isSameAs(s.loop().cmChannel());
        Thread target = ConnectionLoopbackTest.on(s.loop(), Thread::currentThread);
        assertThat(t.server.threads).containsOnly(target);
        assertThat(ConnectionLoopbackTest.on(listenerLoop, listenerLoop::endpointCount)).as("only the listener")
                .isEqualTo(1);
        t.tearDown();
    }
}
