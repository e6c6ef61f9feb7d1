package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.fake.LoopBlockHound;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Shared receives with credits: both Ibex ends take receives from their loop's SRQ, the receiver grants a window of
 * messages and returns credits as its application consumes them, so a slow consumer stops its own sender only.
 */
class CreditsTest {
    private final ConnectionLoopbackTest h = new ConnectionLoopbackTest();
    private Recorder client;

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    @AfterEach
    void tearDown() {
        h.tearDown();
    }

    @Test
    void twoIbexEndsShareReceivesAndTheSenderStopsAtTheGrantUntilTheConsumerReleases() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT.withReceiveWindow(4), true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sharesReceives)).isTrue();
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::sharesReceives)).isTrue();
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sendCredits)).as("the server's grant").isEqualTo(4);
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::sendCredits)).as("the client's grant")
                .isEqualTo(ConnectionOptions.DEFAULT.receiveWindow());

        h.server.hold = true;
        for (int i = 0; i < 4; i++) {
            ConnectionLoopbackTest.send(c, "m" + i, i);
        }
        await().until(() -> h.server.messages.size() == 4);
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::isWritable)).isFalse();
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::writableSlots)).isZero();
        assertThat(client.events()).containsOnlyOnce("writable false");
        assertThatThrownBy(() -> ConnectionLoopbackTest.send(c, "too many", 99))
                .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("no send credit");

        List<Buffer> held = new ArrayList<>(h.server.held);
        h.server.held.clear();
        held.get(0).release(); // one consumed: a quarter of 4 is owed, and goes back at once
        await().until(() -> client.events().contains("writable true"));
        ConnectionLoopbackTest.send(c, "m4", 4);
        await().until(() -> h.server.messages.size() == 5);
        h.server.hold = false;
        held.subList(1, 4).forEach(Buffer::release);
        h.server.held.forEach(Buffer::release);
        assertThat(h.server.messages).as("credit updates never reach the application")
                .containsExactly("m0", "m1", "m2", "m3", "m4");
    }

    @Test
    void anUpdateOwedInATurnRidesInTheReplyTheApplicationSentInIt() throws Exception {
        Connection[] ends = pingHeld(ConnectionOptions.DEFAULT.withReceiveWindow(4));
        Connection c = ends[0];
        Connection s = ends[1];
        FakeQp qp = (FakeQp) s.qp();
        int before = qp.posted().size();

        ConnectionLoopbackTest.on(s.loop(), () -> { // one turn: consume the request (a credit owed), reply
            h.server.held.remove(0).release();
            Buffer b = s.allocate();
            s.send(b, Recorder.put(b, "pong"), 2);
            return null;
        });

        await().until(() -> client.messages.contains("pong"));
        await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::sendCredits) == 4);
        assertThat(qp.posted()).as("one work request: the reply, carrying the update").hasSize(before + 1);
        FakeQp.SendWr reply = qp.posted().get(before);
        assertThat(reply.length()).isEqualTo("pong".length());
        assertThat(reply.opcode()).isEqualTo(Operation.SEND_WITH_IMM.opcode());
        assertThat(reply.imm()).isEqualTo(Credits.update(1));
        assertThat(client.imms).as("the application sees the plain message it was").containsExactly((Integer) null);
        await().until(() -> h.server.completed.contains(2L)); // the reply completes as the SEND it was
    }

    @Test
    void anEndThatKeepsCreditsOutOfMessagesGetsEachUpdateAfterTheReplyInTheSameTurn() throws Exception {
        // the server says nothing of riding credits: neither end lets them ride, and its update follows its reply
        Connection[] ends = pingHeld(ConnectionOptions.DEFAULT.withReceiveWindow(4).withCreditsInMessages(false));
        Connection c = ends[0];
        Connection s = ends[1];
        FakeQp qp = (FakeQp) s.qp();
        int before = qp.posted().size();

        ConnectionLoopbackTest.on(s.loop(), () -> {
            h.server.held.remove(0).release();
            Buffer b = s.allocate();
            s.send(b, Recorder.put(b, "pong"), 2);
            return null;
        });

        await().until(() -> qp.posted().size() >= before + 2);
        List<FakeQp.SendWr> turn = qp.posted().subList(before, before + 2);
        assertThat(turn.get(0).length()).as("the reply first, so the update's packet does not hold it back")
                .isEqualTo("pong".length());
        assertThat(turn.get(0).opcode()).isEqualTo(Operation.SEND.opcode());
        assertThat(turn.get(1).length()).isZero();
        assertThat(turn.get(1).imm() >>> 24).as("then the credit update").isEqualTo(Credits.UPDATE_TAG);
        await().until(() -> client.messages.contains("pong"));
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sendCredits)).as("the credit came back").isEqualTo(4);
        // the client's own options let credits ride, but the server would not read them: they ride neither way
        assertThat(ConnectionLoopbackTest.on(c.loop(), () -> c.credits.ride())).isFalse();
        assertThat(ConnectionLoopbackTest.on(s.loop(), () -> s.credits.ride())).isFalse();
    }

    @Test
    void anUpdateRidesInTheLastPartOfAMessageOfSeveralBuffersWhichArrivesWhole() throws Exception {
        Connection[] ends = pingHeld(ConnectionOptions.DEFAULT.withReceiveWindow(4));
        Connection c = ends[0];
        Connection s = ends[1];
        FakeQp qp = (FakeQp) s.qp();
        int before = qp.posted().size();
        int size = ConnectionLoopbackTest.on(s.loop(), () -> s.pool().bufferSize());
        byte[] bytes = new byte[2 * size + 7];
        for (int k = 0; k < bytes.length; k++) {
            bytes[k] = (byte) (k * 31);
        }

        ConnectionLoopbackTest.on(s.loop(), () -> {
            h.server.held.remove(0).release();
            dev.ibex.cm.buffer.BufferList list = new dev.ibex.cm.buffer.BufferList();
            for (int at = 0; at < bytes.length; at += size) {
                Buffer b = s.allocate();
                int n = Math.min(size, bytes.length - at);
                java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(bytes), at, b.segment(),
                        0, n);
                list.add(b, n);
            }
            s.send(list, 5);
            return null;
        });

        await().until(() -> client.lists.size() == 1);
        assertThat(client.lists.get(0)).isEqualTo(bytes);
        assertThat(client.imms).as("no immediate data reaches the application").containsExactly((Integer) null);
        await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::sendCredits) == 4);
        assertThat(qp.posted()).as("three parts, the update in the last").hasSize(before + 3);
        FakeQp.SendWr last = qp.posted().get(before + 2);
        assertThat(last.imm()).isEqualTo(Credits.update(1));
        assertThat(last.length()).isEqualTo(7);
    }

    @Test
    void whileCreditsRideImmediateDataWithTheCreditTagIsRefusedWhateverTheLength() throws Exception {
        Connection s = connected(ConnectionOptions.DEFAULT)[1];
        assertThat(ConnectionLoopbackTest.on(s.loop(), () -> s.credits.ride())).isTrue();
        for (int length : new int[] {0, 4}) {
            assertThatThrownBy(() -> sendTagged(s, length)).hasCauseInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("credit tag");
        }
    }

    @Test
    void withoutRidingCreditsTheTagIsTheApplicationsOnAMessageWithBytes() throws Exception {
        Connection s = connected(ConnectionOptions.DEFAULT.withCreditsInMessages(false))[1];
        ConnectionLoopbackTest.on(s.loop(), () -> {
            Buffer b = s.allocate();
            s.sendWithImm(b, 0, Recorder.put(b, "tagged"), Credits.update(3), 1);
            return null;
        });
        await().until(() -> client.messages.contains("tagged"));
        assertThat(client.imms).containsExactly(Credits.update(3));
        assertThatThrownBy(() -> sendTagged(s, 0)).hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("credit update");
    }

    /** On {@code s}'s loop, sends {@code length} bytes with immediate data the credit tag; the buffer goes back. */
    private static void sendTagged(Connection s, int length) throws Exception {
        ConnectionLoopbackTest.on(s.loop(), () -> {
            Buffer b = s.allocate();
            try {
                s.sendWithImm(b, 0, length, Credits.update(3), 1);
            } finally {
                b.release();
            }
            return null;
        });
    }

    @Test
    void anEmptyWriteWithImmediateDataWithTheCreditTagIsARemoteWriteNotAnUpdate() throws Exception {
        Connection[] ends = connected(ConnectionOptions.DEFAULT.withReceiveWindow(4));
        Connection c = ends[0];
        ConnectionLoopbackTest.on(c.loop(), () -> {
            Buffer b = c.allocate();
            c.writeWithImm(b, 0, 0, new RemoteBuffer(0, 0, 0), 0, Credits.update(3), 1);
            return null;
        });
        await().until(() -> h.server.events().contains("remoteWrite " + Credits.update(3) + " 0"));
        await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::sendCredits) == 4); // the receive it took, returned
        Connection s = ends[1];
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::sendCredits)).as("the WRITE gave the server no credits")
                .isEqualTo(ConnectionOptions.DEFAULT.receiveWindow());
    }

    /** Connects a client with default options to a server with {@code server}'s: {client, server}. */
    private Connection[] connected(ConnectionOptions server) throws Exception {
        client = new Recorder();
        h.start();
        h.listen(server, true);
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        return new Connection[] {c, s};
    }

    /** {@link #connected}, and the server holds a "ping" from the client. */
    private Connection[] pingHeld(ConnectionOptions server) throws Exception {
        Connection[] ends = connected(server);
        Connection c = ends[0];
        Connection s = ends[1];
        h.server.hold = true;
        ConnectionLoopbackTest.send(c, "ping", 1);
        await().until(() -> h.server.held.size() == 1);
        return new Connection[] {c, s};
    }

    @Test
    void anUpdateOwedInATurnThatFillsTheSendBatchGoesInTheTurnsNextPost() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT.withReceiveWindow(4), true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        h.server.hold = true;
        ConnectionLoopbackTest.send(c, "ping", 1);
        await().until(() -> h.server.held.size() == 1);
        int batch = ConnectionOptions.DEFAULT.signalInterval(); // the send queue's batch holds this many WRs
        FakeQp qp = (FakeQp) s.qp();
        int before = qp.posted().size();

        ConnectionLoopbackTest.on(s.loop(), () -> { // one turn: a credit owed, then a full batch of replies
            h.server.held.remove(0).release();
            for (int i = 0; i < batch; i++) {
                Buffer b = s.allocate();
                s.send(b, Recorder.put(b, "r" + i), 10 + i);
            }
            return null;
        });

        await().until(() -> client.messages.size() == batch);
        assertThat(client.messages).as("every reply, in order").containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, batch).mapToObj(i -> "r" + i).toList());
        await().until(() -> qp.posted().size() >= before + batch + 1);
        FakeQp.SendWr last = qp.posted().get(before + batch);
        assertThat(last.length()).isZero();
        assertThat(last.imm() >>> 24).as("the update, after the batch it did not fit in").isEqualTo(Credits.UPDATE_TAG);
        await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::sendCredits) == 4);
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::state)).isEqualTo(ConnectionState.ESTABLISHED);
    }

    @Test
    void forwardingAReceivedBufferReturnsItsCreditOnceTheSendCompleted() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT.withReceiveWindow(4), true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        h.server.hold = true;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 4; i++) {
                ConnectionLoopbackTest.send(c, "r" + round + "m" + i, i);
            }
            int expected = 4 * (round + 1);
            await().until(() -> h.server.held.size() == 4);
            List<Buffer> held = new ArrayList<>(h.server.held);
            h.server.held.clear();
            // zero-copy echo: each received buffer goes straight back out; the send releases it when it completes
            ConnectionLoopbackTest.on(s.loop(), () -> {
                for (Buffer b : held) {
                    s.send(b, b.offset(), b.length(), 100);
                }
                return null;
            });
            await().until(() -> client.messages.size() == expected);
            // the four consumed receives are owed back: without them the client could never send again
            await().until(() -> ConnectionLoopbackTest.on(c.loop(), c::sendCredits) == 4);
        }
        assertThat(client.messages).hasSize(12).startsWith("r0m0", "r0m1", "r0m2", "r0m3");
    }

    @Test
    void aSlowConsumerHoldsBackItsOwnSenderOnlyTheOtherConnectionsKeepGoing() throws Exception {
        h.start(dev.ibex.cm.loop.LoopOptions.DEFAULT.withLoops(1).withSrqDepth(16));
        h.listen(ConnectionOptions.DEFAULT.withReceiveWindow(8), false);
        Recorder slowServer = new Recorder();
        slowServer.hold = true;
        Recorder fastServer = new Recorder();
        Recorder slowClient = new Recorder();
        Connection slow = h.connect(slowClient, null, ConnectionOptions.DEFAULT);
        h.request().accept(slowServer, null);
        slowClient.established.get(5, TimeUnit.SECONDS);
        h.resetRequest();
        Recorder fastClient = new Recorder();
        Connection fast = h.connect(fastClient, null, ConnectionOptions.DEFAULT);
        h.request().accept(fastServer, null);
        fastClient.established.get(5, TimeUnit.SECONDS);

        for (int i = 0; i < 8; i++) {
            ConnectionLoopbackTest.send(slow, "s" + i, i);
        }
        await().until(() -> slowServer.messages.size() == 8);
        assertThat(ConnectionLoopbackTest.on(slow.loop(), slow::isWritable)).as("its grant is used up").isFalse();
        // 100 messages through the same SRQ (16 deep) while the slow one holds 8 of its buffers
        for (int i = 0; i < 100; i++) {
            while (!ConnectionLoopbackTest.on(fast.loop(), fast::isWritable)) {
                Thread.onSpinWait();
            }
            ConnectionLoopbackTest.send(fast, "f" + i, i);
        }
        await().until(() -> fastServer.messages.size() == 100);
        slowServer.held.forEach(Buffer::release);
    }

    /**
     * Regression (SharedReceivesTest in CI): a slow consumer's messages took every receive of the SRQ, and the SRQ was
     * refilled only when a buffer came back or on SRQ_LIMIT — whose handler read the loop's count of posted receives
     * before the loop had polled the completions that consumed them, so it posted nothing, re-armed a limit the empty
     * queue could never cross again, and every other connection of the loop got RNR NAKs for good. The loop refills
     * as it consumes, whatever the event does.
     */
    @Test
    void theSrqIsRefilledAsItIsConsumedEvenWithoutItsLimitEvent() throws Exception {
        h.start(dev.ibex.cm.loop.LoopOptions.DEFAULT.withLoops(1).withSrqDepth(16));
        h.fabric.srqLimitEvents(false);
        h.listen(ConnectionOptions.DEFAULT.withReceiveWindow(16), false);
        Recorder slowServer = new Recorder();
        slowServer.hold = true;
        Recorder fastServer = new Recorder();
        Recorder slowClient = new Recorder();
        Connection slow = h.connect(slowClient, null, ConnectionOptions.DEFAULT);
        h.request().accept(slowServer, null);
        slowClient.established.get(5, TimeUnit.SECONDS);
        h.resetRequest();
        Recorder fastClient = new Recorder();
        Connection fast = h.connect(fastClient, null, ConnectionOptions.DEFAULT);
        h.request().accept(fastServer, null);
        fastClient.established.get(5, TimeUnit.SECONDS);

        for (int i = 0; i < 16; i++) { // the whole SRQ, held
            ConnectionLoopbackTest.send(slow, "s" + i, i);
        }
        await().until(() -> slowServer.messages.size() == 16);
        for (int i = 0; i < 40; i++) {
            await().until(() -> ConnectionLoopbackTest.on(fast.loop(), fast::isWritable));
            ConnectionLoopbackTest.send(fast, "f" + i, i);
        }
        await().until(() -> fastServer.messages.size() == 40);
        slowServer.held.forEach(Buffer::release);
    }

    /**
     * Regression (issue 17: 256 connections echoing on 2 loops drew RNR NAKs and retransmissions with no fault): the
     * SRQ was kept at its configured depth whatever its connections granted, so a burst of what the credits allowed
     * found it empty. It is kept filled to the windows of the connections bound to it: here two connections granted
     * 16 each against an SRQ of 8, and both senders spend every credit in one turn of the loop, before it can refill.
     */
    @Test
    void theSrqHoldsWhatItsConnectionsGrantedSoAFullBurstMeetsNoRnr() throws Exception {
        h.start(dev.ibex.cm.loop.LoopOptions.DEFAULT.withLoops(1).withSrqDepth(8));
        ConnectionOptions window16 = ConnectionOptions.DEFAULT.withReceiveWindow(16);
        h.listen(window16, true);
        h.server.hold = true;
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        Connection a = h.connect(first, null, window16);
        Connection b = h.connect(second, null, window16);
        first.established.get(5, TimeUnit.SECONDS);
        second.established.get(5, TimeUnit.SECONDS);
        assertThat(ConnectionLoopbackTest.on(a.loop(), a::sendCredits)).isEqualTo(16);
        assertThat(ConnectionLoopbackTest.on(b.loop(), b::sendCredits)).isEqualTo(16);

        int blocked = ConnectionLoopbackTest.on(a.loop(), () -> { // one turn: no refill in between
            for (Connection c : List.of(a, b)) {
                for (int i = 0; i < 16; i++) {
                    Buffer m = c.allocate();
                    c.send(m, Recorder.put(m, "m" + i), i);
                }
                c.flush();
            }
            return ((FakeQp) a.qp()).blockedSends() + ((FakeQp) b.qp()).blockedSends();
        });
        assertThat(blocked).as("sends that found no receive (RNR)").isZero();
        await().until(() -> h.server.messages.size() == 32);
        h.server.held.forEach(Buffer::release);
    }

    @Test
    void aPeerThatOffersNoCreditsGetsAWindowWhenItConnects() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT, true); // shared, but the client does not offer credits
        Recorder client = new Recorder();
        Connection c = h.connect(client, new byte[56],
                ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW));
        Connection s = h.server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::sharesReceives)).isFalse();
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::postedReceives))
                .isEqualTo(ConnectionOptions.DEFAULT.receiveWindow());
        assertThat(ConnectionLoopbackTest.on(s.loop(), s::sendCredits)).isEqualTo(-1);
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sendCredits)).isEqualTo(-1);
        assertThat(h.request().privateData()).as("all 56 bytes are the application's").hasSize(56);
    }

    @Test
    void connectingToAPeerWithAWindowKeepsSharedReceivesWithoutCredits() throws Exception {
        h.start();
        h.listen(ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW), true);
        Recorder client = new Recorder();
        Connection c = h.connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sharesReceives)).isTrue();
        assertThat(ConnectionLoopbackTest.on(c.loop(), c::sendCredits)).as("not bounded by credits").isEqualTo(-1);
        ConnectionLoopbackTest.send(c, "hello", 1);
        await().until(() -> h.server.messages.contains("hello"));
    }

    /**
     * Regression: on a shared receive queue a connection counted as drained as soon as the peer's disconnect came,
     * so receives completed just before it, still in the CQ, found no connection and were lost.
     */
    @Test
    void messagesThatArrivedBeforeThePeersDisconnectAreDeliveredBeforeItCloses() throws Exception {
        for (int round = 0; round < 20; round++) {
            h.start();
            h.listen(ConnectionOptions.DEFAULT, true);
            Recorder client = new Recorder();
            h.connect(client, null, ConnectionOptions.DEFAULT);
            Connection s = h.server.established.get(5, TimeUnit.SECONDS);
            client.established.get(5, TimeUnit.SECONDS);
            ConnectionLoopbackTest.on(s.loop(), () -> {
                for (String m : new String[] {"last", "words"}) {
                    Buffer b = s.allocate();
                    s.send(b, Recorder.put(b, m), 0);
                }
                s.flush();
                s.close(); // at once: the messages and the disconnect race to the client
                return null;
            });
            client.closed.get(5, TimeUnit.SECONDS);
            assertThat(client.messages).as("round %d: %s", round, client.events()).containsExactly("last", "words");
            h.tearDown();
        }
    }
}
