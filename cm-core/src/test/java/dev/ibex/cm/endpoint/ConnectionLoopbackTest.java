package dev.ibex.cm.endpoint;

import static dev.ibex.cm.fake.Eventually.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.fake.FakeFabric;
import dev.ibex.cm.fake.FakeQp;
import dev.ibex.cm.fake.LoopBlockHound;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.cm.spi.SendFlags;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ConnectionLoopbackTest {
    static final InetSocketAddress SERVER = new InetSocketAddress("10.0.0.1", 7471);

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    FakeFabric fabric;
    EventLoopGroup group;
    Recorder server;
    private Listener listener;
    private volatile CompletableFuture<ConnectionRequest> request = new CompletableFuture<>();

    @BeforeAll
    static void blockHound() {
        LoopBlockHound.install();
    }

    void start(LoopOptions options) {
        fabric = FakeFabric.loopback();
        group = EventLoopGroup.of(fabric, options.withCloseTimeout(Duration.ofSeconds(2))
                .withUncaughtHandler(uncaught::add));
    }

    void start() {
        start3();
    }

    void start3() {
        start(LoopOptions.DEFAULT.withLoops(3).withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(1024)
                .withLeakTracking(true)));
    }

    /** Listens; accepts every request with "welcome" unless told otherwise. */
    void listen(ConnectionOptions childOptions, boolean autoAccept) throws Exception {
        server = new Recorder();
        CompletableFuture<Listener> listening = new CompletableFuture<>();
        listener = Listener.listen(group.next(), SERVER, ListenOptions.DEFAULT.withConnection(childOptions),
                new ListenerHandler() {
                    @Override
                    public void onConnectionRequest(ConnectionRequest r) {
                        request.complete(r);
                        if (autoAccept) {
                            r.accept(server, "welcome".getBytes(StandardCharsets.UTF_8));
                        }
                    }

                    @Override
                    public void onListening(Listener l) {
                        listening.complete(l);
                    }

                    @Override
                    public void onError(Listener l, Throwable error) {
                        listening.completeExceptionally(error);
                    }
                });
        listening.get(5, TimeUnit.SECONDS);
    }

    EventLoop listenerLoop() {
        return listener.loop();
    }

    Connection connect(Recorder client, byte[] data, ConnectionOptions options) {
        return Connection.connect(group.next(), SERVER, data, options, client);
    }

    static <T> T on(EventLoop loop, Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    static void send(Connection c, String text, long attachment) throws Exception {
        on(c.loop(), () -> {
            Buffer b = c.allocate();
            try {
                c.send(b, Recorder.put(b, text), attachment);
            } catch (RuntimeException refused) {
                b.release(); // a refused send (no credit, queue full) leaves the buffer with the caller
                throw refused;
            }
            return null;
        });
    }

    /** The (next) connection request the listener received. */
    ConnectionRequest request() throws Exception {
        return request.get(5, TimeUnit.SECONDS);
    }

    /** Lets {@link #request()} wait for the next request. */
    void resetRequest() {
        request = new CompletableFuture<>();
    }

    /** The test expected what the loop reported as uncaught. */
    void clearUncaught() {
        uncaught.clear();
    }

    @AfterEach
    void tearDown() {
        if (group != null) {
            group.close();
            group = null;
            assertThat(fabric.resources().total()).as(fabric.resources().toString()).isZero();
            assertThat(fabric.violations()).isEmpty();
            fabric.close();
        }
        assertThat(uncaught).isEmpty();
    }

    @Test
    void connectsExchangesPrivateDataAndMessagesAndClosesCleanly() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = connect(client, "hi".getBytes(StandardCharsets.UTF_8), ConnectionOptions.DEFAULT);
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        assertThat(text(request.get().privateData())).isEqualTo("hi");
        assertThat(text(c.peerPrivateData())).isEqualTo("welcome");
        assertThat(request.get().privateData()).as("the field less Ibex's credit offer").hasSize(48);
        assertThat(c.peerPrivateData()).hasSize(188);
        assertThat(c.state()).isEqualTo(ConnectionState.ESTABLISHED);
        assertThat(s.isPassive()).isTrue();
        assertThat(s.loop()).as("accepted connections move round-robin").isNotSameAs(listener.loop());

        send(c, "ping", 11);
        await().until(() -> server.messages.contains("ping"));
        send(s, "pong", 22);
        await().until(() -> client.messages.contains("pong") && client.completed.contains(11L)
                && server.completed.contains(22L));
        assertThat(client.threads).containsOnly(threadOf(c.loop()));
        assertThat(server.threads).containsOnly(threadOf(s.loop()));

        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        server.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsExactly("established", "complete SEND", "message", "closed");
        assertThat(server.events()).containsExactly("established", "message", "complete SEND", "disconnected",
                "closed");
        assertThat(fabric.count(ResourceKind.QUEUE_PAIR)).isZero();
        assertThat(fabric.count(ResourceKind.CM_ID)).as("only the listener's id").isEqualTo(1);
        assertThat(group.bufferLeaks()).isEmpty();
        assertThatThrownBy(() -> on(c.loop(), c::allocate)).hasCauseInstanceOf(IllegalStateException.class);
    }

    private static Thread threadOf(EventLoop loop) throws Exception {
        return on(loop, Thread::currentThread);
    }

    /**
     * Regression: a receive window larger than the loop's completion budget (64) never drained on disconnect —
     * flushed receives were re-posted to the QP in ERR, flushed again, and the close waited out the drain timeout.
     */
    @Test
    void aWindowLargerThanTheCompletionBudgetDrainsOnDisconnect() throws Exception {
        start();
        ConnectionOptions wide = ConnectionOptions.DEFAULT.withReceiveWindow(200)
                .withDrainTimeout(Duration.ofSeconds(60));
        listen(wide, true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, wide);
        client.established.get(5, TimeUnit.SECONDS);
        server.established.get(5, TimeUnit.SECONDS);
        c.close();
        client.closed.get(10, TimeUnit.SECONDS); // far below the 60 s drain timeout the bug waited for
        server.closed.get(10, TimeUnit.SECONDS);
        await().until(() -> fabric.resources().get(ResourceKind.QUEUE_PAIR) == 0);
    }

    /** Regression: the CM leaves min_rnr_timer 0, so a sender that met an empty receive queue stalled 655 ms. */
    @Test
    void establishedConnectionsLoadTheConfiguredRnrDelayOnBothEnds() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT.withMinRnrTimer(3), true);
        Connection c = connect(new Recorder(), null, ConnectionOptions.DEFAULT);
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        assertThat(rnrDelay(s)).as("server").isEqualTo(3);
        await().until(() -> rnrDelay(c) == ConnectionOptions.DEFAULT.minRnrTimer());
        assertThat(ConnectionOptions.DEFAULT.minRnrTimer()).isEqualTo(12); // 0.64 ms
    }

    @Test
    void minusOneKeepsTheCmsRnrDelay() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, ConnectionOptions.DEFAULT.withMinRnrTimer(-1));
        client.established.get(5, TimeUnit.SECONDS);
        assertThat(rnrDelay(c)).isZero();
        assertThatThrownBy(() -> ConnectionOptions.DEFAULT.withMinRnrTimer(32))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static int rnrDelay(Connection c) throws Exception {
        return c.loop().submit(() -> c.qp().query(dev.ibex.cm.spi.QpAttr.MIN_RNR_TIMER).minRnrTimer())
                .get(5, TimeUnit.SECONDS);
    }

    @Test
    void aBlockingCallInAConnectionCallbackIsCaughtByBlockHound() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder() {
            @Override
            public void onEstablished(Connection c) {
                super.onEstablished(c);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        connect(client, null, ConnectionOptions.DEFAULT);
        client.established.get(5, TimeUnit.SECONDS);
        await().until(() -> !uncaught.isEmpty());
        assertThat(uncaught.get(0)).isInstanceOf(reactor.blockhound.BlockingOperationError.class);
        uncaught.clear();
    }

    @Test
    void nobodyListeningIsARejectWithReason8() throws Exception {
        start();
        Recorder client = new Recorder();
        connect(client, null, ConnectionOptions.DEFAULT);
        Throwable e = client.error.get(5, TimeUnit.SECONDS);
        assertThat(e).isInstanceOfSatisfying(RdmaConnectException.class, x -> {
            assertThat(x.reason()).isEqualTo(RdmaConnectException.Reason.REJECTED);
            assertThat(x.status()).isEqualTo(8);
            assertThat(x.isNoListener()).isTrue();
            assertThat(x.isConsumerReject()).isFalse();
            assertThat(x.getMessage()).contains("nobody listens");
        });
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.events()).containsExactly("error", "closed");
        assertThat(fabric.resources().get(ResourceKind.CM_ID)).isZero();
    }

    @Test
    void aRejectCarriesTheServersPrivateData() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, false);
        Recorder client = new Recorder();
        connect(client, null, ConnectionOptions.DEFAULT);
        ConnectionRequest r = request.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> r.reject(new byte[149])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("148");
        r.reject("go away".getBytes(StandardCharsets.UTF_8));
        RdmaConnectException x = (RdmaConnectException) client.error.get(5, TimeUnit.SECONDS);
        assertThat(x.isConsumerReject()).isTrue();
        assertThat(new String(x.privateData(), StandardCharsets.UTF_8)).isEqualTo("go away");
        await().until(() -> r.connection().state() == ConnectionState.CLOSED);
        Recorder late = new Recorder();
        r.accept(late);
        assertThat(late.error.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
    }

    /** Private data up to the field with a window of its own; with shared receives Ibex keeps the last 8 bytes. */
    @Test
    void privateDataLimitsAreEnforcedBeforeAnyNativeCall() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, false);
        ConnectionOptions window = ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW);
        assertThatThrownBy(() -> connect(new Recorder(), new byte[57], window))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
        assertThatThrownBy(() -> connect(new Recorder(), new byte[49], ConnectionOptions.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 48")
                .hasMessageContaining("ReceiveMode.WINDOW");
        connect(new Recorder(), new byte[56], window);
        ConnectionRequest r = request.get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> r.accept(new Recorder(), new byte[197])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("196");
        r.accept(new Recorder(), new byte[196]);
    }

    static String text(byte[] zeroPadded) {
        int n = zeroPadded.length;
        while (n > 0 && zeroPadded[n - 1] == 0) {
            n--;
        }
        return new String(zeroPadded, 0, n, StandardCharsets.UTF_8);
    }

    @Test
    void unresolvableAndSilentPeersFailTypedAndNeverHang() throws Exception {
        start();
        Recorder unknown = new Recorder();
        Connection.connect(group.next(), new InetSocketAddress("192.0.2.1", 1), null, ConnectionOptions.DEFAULT,
                unknown);
        assertThat(((RdmaConnectException) unknown.error.get(5, TimeUnit.SECONDS)).reason())
                .isEqualTo(RdmaConnectException.Reason.ADDR_ERROR);
        fabric.blackhole("10.0.1.1");
        Recorder silent = new Recorder();
        Connection.connect(group.next(), new InetSocketAddress("10.0.1.1", 1), null,
                ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofMillis(100)), silent);
        RdmaConnectException x = (RdmaConnectException) silent.error.get(5, TimeUnit.SECONDS);
        assertThat(x.reason()).isEqualTo(RdmaConnectException.Reason.TIMEOUT);
        assertThat(x.errno()).isEqualTo(dev.ibex.cm.Errno.ETIMEDOUT);
        silent.closed.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aSourceAddressChoosesTheDeviceTheConnectionLeavesFrom() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        InetSocketAddress source = new InetSocketAddress("10.0.1.1", 0);
        Connection c = Connection.connect(group.next(), source, SERVER, null, ConnectionOptions.DEFAULT, client);
        client.established.get(5, TimeUnit.SECONDS);
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        // unbound, the fake resolves from the target's device (10.0.0.1): the bound address must have won
        assertThat(c.localAddress().getAddress()).isEqualTo(source.getAddress());
        assertThat(c.device()).isSameAs(fabric.device(1));
        assertThat(s.remoteAddress().getAddress()).as("the server sees the bound requester")
                .isEqualTo(source.getAddress());
        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aSourceAddressNoDeviceOwnsIsATypedAddressErrorAndLeavesNothing() throws Exception {
        start();
        Recorder client = new Recorder();
        Connection.connect(group.next(), new InetSocketAddress("10.9.9.9", 0), SERVER, null,
                ConnectionOptions.DEFAULT, client);
        RdmaConnectException x = (RdmaConnectException) client.error.get(5, TimeUnit.SECONDS);
        assertThat(x.reason()).isEqualTo(RdmaConnectException.Reason.ADDR_ERROR);
        assertThat(x.errno()).isEqualTo(dev.ibex.cm.Errno.EADDRNOTAVAIL);
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(fabric.count(ResourceKind.CM_ID)).isZero(); // the loops' own channels stay until tearDown
        assertThatThrownBy(() -> Connection.connect(group.next(), new InetSocketAddress("::1", 0), SERVER, null,
                ConnectionOptions.DEFAULT, new Recorder())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same family");
    }

    @Test
    void receivesArePostedOnlyWhenTheApplicationReleasesAndTheSenderWaits() throws Exception {
        start();
        int window = 4;
        ConnectionOptions windowed = ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW);
        listen(windowed.withReceiveWindow(window), true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, windowed.withSendQueueDepth(8));
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        server.hold = true;
        int depth = 8;
        int total = window + depth; // 4 land in the posted receives, 8 wait for receives and fill the send queue
        for (int i = 0; i < window; i++) {
            send(c, "m" + i, i);
        }
        await().until(() -> server.messages.size() == window && client.completed.size() == window);
        for (int i = window; i < total; i++) {
            send(c, "m" + i, i);
        }
        FakeQp clientQp = (FakeQp) c.qp();
        await().until(() -> clientQp.blockedSends() == depth);
        assertThat(on(s.loop(), s::postedReceives)).isZero();
        assertThat(on(s.loop(), s::heldMessages)).isEqualTo(window);
        assertThat(on(c.loop(), c::writableSlots)).isZero();
        assertThat(on(c.loop(), c::isWritable)).isFalse();
        assertThat(client.events()).containsOnlyOnce("writable false");
        assertThatThrownBy(() -> send(c, "too much", 99)).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("send queue is full");

        // releasing (here off the loop) re-posts receives; the waiting sends go through in order
        server.releaseHeld();
        await().until(() -> server.messages.size() == total && client.completed.size() == total);
        assertThat(server.messages).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, total).mapToObj(i -> "m" + i).toList());
        assertThat(client.completed).isSorted().hasSize(total);
        assertThat(client.events()).contains("writable true");
        // the last releases re-post their receives on the server's loop after the messages were counted: wait for it
        await().until(() -> on(s.loop(), s::postedReceives) == window);
        assertThat(fabric.violations()).as("never past max_send_wr or max_recv_wr").isEmpty();
    }

    /**
     * The send queue's per-slot arrays start at 16 slots and double as more operations are outstanding (SendQueue):
     * 100 sends held in flight by a receiver that posts no receives take them to 128 while every earlier work request
     * is posted and uncompleted; each then completes once, in order, with its own attachment.
     */
    @Test
    void operationsOutstandingBeyondTheQueuesFirstArraysCompleteInOrderWithTheirAttachments() throws Exception {
        start();
        int window = 4;
        int depth = 100;
        ConnectionOptions windowed = ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW);
        listen(windowed.withReceiveWindow(window), true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, windowed.withSendQueueDepth(depth));
        server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        server.hold = true;
        int total = window + depth;
        for (int i = 0; i < total; i++) {
            send(c, "m" + i, i);
        }
        FakeQp clientQp = (FakeQp) c.qp();
        await().until(() -> clientQp.blockedSends() == depth);
        assertThat(on(c.loop(), c::writableSlots)).isZero();

        server.releaseHeld();
        await().until(() -> server.messages.size() == total && client.completed.size() == total);
        assertThat(server.messages).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, total).mapToObj(i -> "m" + i).toList());
        assertThat(client.completed).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, total).boxed().toList());
        assertThat(on(c.loop(), c::writableSlots)).isEqualTo(depth);
        assertThat(fabric.violations()).as("never past max_send_wr or max_recv_wr").isEmpty();
    }

    @Test
    void closingWithTrafficInFlightFlushesEveryOperationAndReleasesEverything() throws Exception {
        start();
        ConnectionOptions windowed = ConnectionOptions.DEFAULT.withReceiveMode(ReceiveMode.WINDOW);
        listen(windowed.withReceiveWindow(2), true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, windowed);
        server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        server.hold = true;
        for (int i = 0; i < 6; i++) {
            send(c, "x" + i, i);
        }
        await().until(() -> server.messages.size() == 2 && ((FakeQp) c.qp()).blockedSends() == 4);
        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        server.closed.get(5, TimeUnit.SECONDS);
        assertThat(client.completed).containsExactly(0L, 1L);
        assertThat(client.failures).hasSize(4).allSatisfy(f -> assertThat(f)
                .isInstanceOfSatisfying(WorkCompletionException.class, w -> assertThat(w.isFlush()).isTrue()));
        assertThat(client.events().getLast()).isEqualTo("closed");
        server.held.forEach(dev.ibex.cm.buffer.Buffer::release);
        assertThat(fabric.count(ResourceKind.QUEUE_PAIR)).isZero();
        assertThat(group.bufferLeaks()).isEmpty();
    }

    @Test
    void rdmaWriteReadAndAtomicsReachTheExposedBuffer() throws Exception {
        start(LoopOptions.DEFAULT.withLoops(3).withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(1024)));
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        // the server exposes a buffer of its pool (the fake has no memory windows: a region of its own)
        Exposure[] exposure = new Exposure[1];
        Buffer target = on(s.loop(), () -> {
            Buffer t = s.allocate();
            t.segment().fill((byte) 0);
            exposure[0] = s.expose(t, 0, t.capacity(), EnumSet.allOf(RemoteAccess.class), 77);
            return t;
        });
        await().until(() -> server.completed.contains(77L));
        assertThat(exposure[0].mode()).isEqualTo(Exposure.Mode.REGION);
        assertThat(exposure[0].isBoundToConnection()).isFalse();
        on(s.loop(), () -> {
            Buffer ad = s.allocate();
            exposure[0].remote().encode(ad.segment(), 0);
            s.send(ad, RemoteBuffer.BYTES, 1);
            return null;
        });
        await().until(() -> client.raw.size() == 1);
        RemoteBuffer remote = RemoteBuffer.decode(client.raw.get(0), 0);
        assertThat(remote).isEqualTo(new RemoteBuffer(target.address(), exposure[0].rkey(), target.capacity()));
        assertThat(remote.rkey()).as("not the pool's key").isNotEqualTo(target.region().rkey());
        Buffer[] results = on(c.loop(), () -> {
            Buffer b = c.allocate();
            int n = Recorder.put(b, "written remotely");
            c.writeWithImm(b, 0, n, remote, 100, 7, 1);
            Buffer r = c.allocate();
            c.read(r, 0, n, remote, 100, 2);
            Buffer cas = c.allocate();
            c.compareAndSwap(cas, 0, remote, 0, 0, 41, 3);
            Buffer faa = c.allocate();
            c.fetchAndAdd(faa, 0, remote, 0, 1, 4);
            return new Buffer[] {r, cas, faa};
        });
        await().until(() -> client.completed.size() == 4);
        assertThat(client.completed).containsExactly(1L, 2L, 3L, 4L);
        await().until(() -> server.events().contains("remoteWrite 7 16"));
        String written = new String(target.segment().asSlice(100, 16).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
        assertThat(written).isEqualTo("written remotely");
        assertThat(target.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
        // READ and atomics hand their buffers back with the completion
        assertThat(new String(results[0].segment().asSlice(0, 16).toArray(ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8)).isEqualTo("written remotely");
        assertThat(results[1].segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0);
        assertThat(results[2].segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(41);
        for (Buffer r : results) {
            r.release();
        }
        assertThatThrownBy(() -> on(c.loop(), () -> {
            Buffer b = c.allocate();
            try {
                c.read(b, 0, 10, remote, remote.length() - 5, 9);
            } finally {
                b.release();
            }
            return null;
        })).hasCauseInstanceOf(IllegalArgumentException.class);
        target.release(); // ends the exposure: the region is deregistered before the buffer is free
        await().until(() -> server.events().contains("exposureEnded RELEASED"));
        assertThat(exposure[0].end()).isEqualTo(Exposure.End.RELEASED);
        assertThat(on(s.loop(), s::liveExposures)).isZero();
        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        assertThat(group.bufferLeaks()).isEmpty();
    }

    @Test
    void withoutMemoryWindowsAnExposureIsARegionOfItsOwnAndWindowModesAreATypedNotSupported() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT, true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, ConnectionOptions.DEFAULT);
        Connection s = server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        Buffer[] bufs = on(s.loop(), () -> new Buffer[] {s.allocate(), s.allocate(), s.allocate()});
        Set<RemoteAccess> rw = EnumSet.of(RemoteAccess.READ, RemoteAccess.WRITE);
        // the fake device has no memory windows: the SPI and the exposure API say so, typed
        assertThatThrownBy(() -> s.loopDevice().pd().allocMemoryWindow(dev.ibex.cm.spi.MemoryWindow.Type.TYPE_2))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOTSUP));
        for (Exposure.Mode m : new Exposure.Mode[] {Exposure.Mode.WINDOW, Exposure.Mode.WINDOW_OVER_REGION}) {
            assertThatThrownBy(() -> on(s.loop(), () -> s.expose(bufs[0], 0, 64, rw, m, 1)))
                    .hasCauseInstanceOf(RdmaException.class).cause()
                    .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.ENOTSUP));
        }
        // bad arguments are refused before anything is registered
        assertThatThrownBy(() -> on(s.loop(), () -> s.expose(bufs[0], 0, 64, Set.of(), 1)))
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> on(s.loop(), () -> s.expose(bufs[0], 1000, 100, rw, 1)))
                .hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.expose(bufs[0], 0, 64, rw, 1)).as("off the loop")
                .isInstanceOf(IllegalStateException.class);
        int regions = fabric.count(ResourceKind.MEMORY_REGION);
        Exposure revoked = on(s.loop(), () -> s.expose(bufs[0], 8, 64, rw, 10));
        Exposure released = on(s.loop(), () -> s.expose(bufs[1], 0, 1024, EnumSet.of(RemoteAccess.READ), 11));
        Exposure closed = on(s.loop(), () -> s.expose(bufs[2], 0, 16, rw, 12));
        await().until(() -> server.completed.containsAll(List.of(10L, 11L, 12L)));
        assertThat(List.of(revoked, released, closed)).allSatisfy(e -> {
            assertThat(e.mode()).isEqualTo(Exposure.Mode.REGION);
            assertThat(e.isBoundToConnection()).isFalse();
            assertThat(e.isActive()).isTrue();
        });
        assertThat(revoked.remote()).isEqualTo(new RemoteBuffer(bufs[0].address() + 8, revoked.rkey(), 64));
        assertThat(released.rights()).containsExactly(RemoteAccess.READ);
        assertThat(fabric.count(ResourceKind.MEMORY_REGION)).as("a region per exposure").isEqualTo(regions + 3);
        revoked.revoke(); // any thread
        await().until(() -> server.events().contains("exposureEnded REVOKED"));
        assertThat(revoked.end()).isEqualTo(Exposure.End.REVOKED);
        bufs[1].release(); // ends its exposure first, then the buffer goes back
        await().until(() -> server.events().contains("exposureEnded RELEASED"));
        assertThat(fabric.count(ResourceKind.MEMORY_REGION)).isEqualTo(regions + 1);
        bufs[0].release();
        c.close();
        client.closed.get(5, TimeUnit.SECONDS);
        await().until(() -> server.events().contains("closed"));
        List<String> ends = server.events();
        assertThat(ends.indexOf("exposureEnded CLOSED")).as("before onClosed").isBetween(0, ends.indexOf("closed"));
        assertThat(closed.end()).isEqualTo(Exposure.End.CLOSED);
        assertThat(fabric.count(ResourceKind.MEMORY_REGION)).isEqualTo(regions);
        bufs[2].release();
        assertThat(group.bufferLeaks()).isEmpty();
    }

    @Test
    void smallSendsGoInlineAndOnlyTheLastOfABatchIsSignaled() throws Exception {
        start();
        listen(ConnectionOptions.DEFAULT.withReceiveWindow(64), true);
        Recorder client = new Recorder();
        Connection c = connect(client, null, ConnectionOptions.DEFAULT.withSignalInterval(16));
        server.established.get(5, TimeUnit.SECONDS);
        client.established.get(5, TimeUnit.SECONDS);
        on(c.loop(), () -> {
            for (int i = 0; i < 40; i++) {
                Buffer b = c.allocate();
                c.send(b, i < 20 ? 8 : 200, i);
            }
            return null;
        });
        await().until(() -> client.completed.size() == 40);
        List<FakeQp.SendWr> posted = ((FakeQp) c.qp()).posted();
        assertThat(posted).hasSize(40);
        assertThat(posted.stream().filter(w -> (w.flags() & SendFlags.INLINE) != 0).count()).isEqualTo(20);
        assertThat(posted.stream().filter(FakeQp.SendWr::signaled).count()).isEqualTo(3);
        assertThat(client.completed).isSorted();
        assertThat(((FakeQp) c.qp()).outstandingSends()).isZero();
    }
}
