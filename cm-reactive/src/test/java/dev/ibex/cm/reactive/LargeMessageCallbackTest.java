package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.BufferList;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import dev.ibex.cm.endpoint.MessageTooLargeException;
import dev.ibex.cm.endpoint.Operation;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Messages longer than a pool buffer through cm-core's callback API ({@link Connection#send(BufferList, long)},
 * {@link ConnectionHandler#onMessage(Connection, BufferList)}) on soft-roce: an echo server copies each message into
 * buffers of its own and sends it back; every size around the boundaries comes back whole and in order, each
 * message completes exactly once, and nothing leaks.
 */
class LargeMessageCallbackTest {
    static final Duration WAIT = Duration.ofSeconds(60);
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULT.withMaxMessageSize(LargeMessageTest.MAX);

    final SoftHosts hosts = new SoftHosts(LargeMessageTest.POOL);
    Listener listener;

    @AfterEach
    void close() {
        if (listener != null) {
            listener.close();
        }
        hosts.close();
    }

    /** Copies each message into buffers of its own pool and sends it back. */
    static final class Echo implements ConnectionHandler {
        @Override
        public void onMessage(Connection c, Buffer m) {
            if (c.state() != dev.ibex.cm.endpoint.ConnectionState.ESTABLISHED) {
                m.release(); // the client is going: messages that arrived before its DREQ need no echo
                return;
            }
            Buffer out = c.allocate();
            MemorySegment.copy(m.segment(), m.offset(), out.segment(), 0, m.length());
            int len = m.length();
            m.release();
            c.send(out, 0, len, 0);
        }

        @Override
        public void onMessage(Connection c, BufferList m) {
            byte[] bytes = m.toByteArray();
            m.release();
            if (c.state() == dev.ibex.cm.endpoint.ConnectionState.ESTABLISHED) { // not once the client is going
                c.send(fill(c, bytes), 0);
            }
        }
    }

    static BufferList fill(Connection c, byte[] bytes) {
        BufferList list = new BufferList();
        int size = c.pool().bufferSize();
        for (int at = 0; at < bytes.length || at == 0; at += size) {
            Buffer b = c.allocate();
            int n = Math.min(size, bytes.length - at);
            MemorySegment.copy(MemorySegment.ofArray(bytes), at, b.segment(), 0, n);
            list.add(b, n);
        }
        return list;
    }

    /** Records messages (as bytes), completions and the end. */
    static final class Client implements ConnectionHandler {
        final CompletableFuture<Connection> established = new CompletableFuture<>();
        final List<byte[]> received = new CopyOnWriteArrayList<>();
        final List<Long> completed = new CopyOnWriteArrayList<>();
        final List<Long> failed = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> closed = new CompletableFuture<>();

        @Override
        public void onEstablished(Connection c) {
            established.complete(c);
        }

        @Override
        public void onMessage(Connection c, Buffer m) {
            received.add(m.segment().asSlice(m.offset(), m.length()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            m.release();
        }

        @Override
        public void onMessage(Connection c, BufferList m) {
            received.add(m.toByteArray());
            m.release();
        }

        @Override
        public void onComplete(Connection c, Operation op, long attachment) {
            completed.add(attachment);
        }

        @Override
        public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
            failed.add(attachment);
        }

        @Override
        public void onClosed(Connection c) {
            closed.complete(null);
        }
    }

    Connection connect(Client client) throws Exception {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        listener = Listener.listen(hosts.server.next(), new InetSocketAddress(SoftHosts.SERVER_IP, 0),
                ListenOptions.DEFAULT.withConnection(OPTIONS), new ListenerHandler() {
                    @Override
                    public void onConnectionRequest(ConnectionRequest r) {
                        r.accept(new Echo());
                    }

                    @Override
                    public void onListening(Listener l) {
                        listening.complete(null);
                    }
                });
        listening.get(10, TimeUnit.SECONDS);
        Connection c = Connection.connect(hosts.client.next(), listener.localAddress(), null, OPTIONS, client);
        client.established.get(10, TimeUnit.SECONDS);
        return c;
    }

    static <T> T on(Connection c, java.util.concurrent.Callable<T> task) throws Exception {
        return c.loop().submit(task).get(10, TimeUnit.SECONDS);
    }

    @Test
    void everySizeAroundTheBoundariesComesBackWholeInOrderAndCompletesOnce() throws Exception {
        Client client = new Client();
        Connection c = connect(client);
        List<Integer> sizes = LargeMessageTest.sizes();
        for (int i = 0; i < sizes.size(); i++) {
            byte[] bytes = LargeMessageTest.pattern(sizes.get(i), i);
            long attachment = i;
            // each one is posted as soon as the connection takes it: later ones wait behind the large ones
            await().atMost(WAIT).until(() -> on(c, c::writableSlots) > 0);
            on(c, () -> {
                c.send(fill(c, bytes), attachment);
                return null;
            });
        }
        await().atMost(WAIT).until(() -> client.received.size() == sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            assertThat(client.received.get(i)).as("message %d (%d B)", i, sizes.get(i))
                    .isEqualTo(LargeMessageTest.pattern(sizes.get(i), i));
        }
        await().atMost(WAIT).until(() -> client.completed.size() == sizes.size());
        assertThat(client.completed).as("one completion per message, in order")
                .containsExactlyElementsOf(java.util.stream.LongStream.range(0, sizes.size()).boxed().toList());
        assertThat(client.failed).isEmpty();
        c.close();
        client.closed.get(10, TimeUnit.SECONDS);
        hosts.assertNoLeaks();
    }

    @Test
    void pastTheMaximumTheSendIsRefusedTypedAndTheBuffersStayTheCallers() throws Exception {
        Client client = new Client();
        Connection c = connect(client);
        assertThat(on(c, c::maxMessageSize)).isEqualTo(LargeMessageTest.MAX);
        BufferList tooLong = on(c, () -> fill(c, new byte[LargeMessageTest.MAX + 1]));
        assertThatThrownBy(() -> on(c, () -> {
            c.send(tooLong, 1);
            return null;
        })).hasCauseInstanceOf(MessageTooLargeException.class)
                .hasMessageContaining("exceeds the limit of " + LargeMessageTest.MAX);
        assertThat(tooLong.count()).as("nothing was taken").isEqualTo(LargeMessageTest.MAX / 4096 + 1);
        on(c, () -> {
            tooLong.release();
            return null;
        });
        c.close();
        client.closed.get(10, TimeUnit.SECONDS);
        assertThat(client.completed).isEmpty();
        assertThat(client.failed).isEmpty();
        hosts.assertNoLeaks();
    }

    @Test
    void closingWithMessagesStillWaitingFailsEachOnceAndLeaksNothing() throws Exception {
        Client client = new Client();
        Connection c = connect(client);
        int n = 6;
        on(c, () -> {
            for (int i = 0; i < n; i++) {
                c.send(fill(c, new byte[256 * 1024]), i); // 64 fragments each, 64 fragment slots: most wait
            }
            c.close();
            return null;
        });
        client.closed.get(20, TimeUnit.SECONDS);
        assertThat(client.completed.size() + client.failed.size()).as("exactly one outcome per message").isEqualTo(n);
        hosts.assertNoLeaks();
    }
}
