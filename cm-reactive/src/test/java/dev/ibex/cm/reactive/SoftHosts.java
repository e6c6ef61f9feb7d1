package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * Two "hosts" on the soft-roce provider in one JVM: a server fabric on 127.0.0.2 and a client fabric on 127.0.0.3,
 * on a free (non-default) UDP port, CM timers shortened, each with one event loop and leak-tracking buffer pools.
 * {@link #close()} closes both groups and checks that every resource and buffer came back.
 */
final class SoftHosts implements AutoCloseable {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    /** An address on loopback where no fabric listens: CM requests go unanswered. */
    static final String NOBODY_IP = "127.0.0.9";

    final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP, "127.0.0.12", "127.0.0.13");
    private Map<String, String> extra = Map.of();
    final Fabric serverFabric;
    final Fabric clientFabric;
    final EventLoopGroup server;
    final EventLoopGroup client;
    final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private final int caAckDelay;

    SoftHosts() {
        this(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024));
    }

    SoftHosts(BufferPool.Options buffers) {
        this(buffers, "cli=" + CLIENT_IP);
    }

    /** With the client fabric's devices given ({@code name=ip,…}; the first should be {@link #CLIENT_IP}). */
    SoftHosts(String clientDevices) {
        this(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), clientDevices);
    }

    /** With extra soft-roce settings for both fabrics (e.g. {@code ibex.softroce.maxMulticastGroups}). */
    SoftHosts(Map<String, String> settings) {
        this(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), "srv=" + SERVER_IP,
                "cli=" + CLIENT_IP, 18, settings, UnaryOperator.identity());
    }

    private SoftHosts(BufferPool.Options buffers, String clientDevices) {
        this(buffers, "srv=" + SERVER_IP, clientDevices, 18, Map.of(), UnaryOperator.identity());
    }

    /**
     * For long runs on a loaded machine: an ACK timeout of 0.86 s instead of 0.11 s (CA ACK delay 21), so a stall of
     * a few seconds (7 retries) does not end a connection with RETRY_EXC_ERR.
     */
    static SoftHosts patient() {
        return patient(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024));
    }

    /** {@link #patient()} with the loops' pools given. */
    static SoftHosts patient(BufferPool.Options buffers) {
        return new SoftHosts(buffers, "srv=" + SERVER_IP, "cli=" + CLIENT_IP, 21, Map.of(), UnaryOperator.identity());
    }

    /** The default hosts with both groups' loop options changed by {@code tune} (e.g. how pools and CQs shrink). */
    static SoftHosts tuned(UnaryOperator<LoopOptions> tune) {
        return new SoftHosts(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), "srv=" + SERVER_IP,
                "cli=" + CLIENT_IP, 18, Map.of(), tune);
    }

    /** The default devices with provider properties added ({@code extra}) and both groups' loop options changed. */
    static SoftHosts with(Map<String, String> extra, UnaryOperator<LoopOptions> tune) {
        return new SoftHosts(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), "srv=" + SERVER_IP,
                "cli=" + CLIENT_IP, 18, extra, tune);
    }

    /** Both hosts' devices given (the first address of each should be {@link #SERVER_IP} / {@link #CLIENT_IP}). */
    SoftHosts(String serverDevices, String clientDevices, Map<String, String> extra) {
        this(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), serverDevices, clientDevices,
                18, extra, UnaryOperator.identity());
    }

    /** The default hosts with the server's and the client's loop options changed apart. */
    static SoftHosts split(UnaryOperator<LoopOptions> serverTune, UnaryOperator<LoopOptions> clientTune) {
        return new SoftHosts(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024), "srv=" + SERVER_IP,
                "cli=" + CLIENT_IP, 18, Map.of(), serverTune, clientTune);
    }

    private SoftHosts(BufferPool.Options buffers, String serverDevices, String clientDevices, int caAckDelay,
            Map<String, String> extra, UnaryOperator<LoopOptions> tune) {
        this(buffers, serverDevices, clientDevices, caAckDelay, extra, tune, tune);
    }

    private SoftHosts(BufferPool.Options buffers, String serverDevices, String clientDevices, int caAckDelay,
            Map<String, String> extra, UnaryOperator<LoopOptions> tune, UnaryOperator<LoopOptions> clientTune) {
        this.caAckDelay = caAckDelay;
        this.extra = extra;
        serverFabric = open(serverDevices);
        clientFabric = open(clientDevices);
        LoopOptions options = LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(2))
                .withBuffers(buffers.withLeakTracking(true)) // local access only: peers get exposures
                .withUncaughtHandler(uncaught::add);
        server = EventLoopGroup.of(serverFabric, tune.apply(options).withThreadName("srv-loop"));
        client = EventLoopGroup.of(clientFabric, clientTune.apply(options).withThreadName("cli-loop"));
    }

    private Fabric open(String devices) {
        Map<String, String> p = new HashMap<>();
        p.put("ibex.softroce.port", Integer.toString(udpPort));
        p.put("ibex.softroce.devices", devices);
        p.put("ibex.softroce.timerScale", "0.1");
        // REQ retried every ~96 ms, UNREACHABLE after ~0.7 s; the QP ACK timeout (from the CA ACK delay, 18:
        // 1.07 s scaled to 107 ms) stays generous, or a loaded machine exhausts the transport retries
        p.put("ibex.softroce.cm.timings", "fast");
        p.put("ibex.softroce.cm.responseTimeout", "14");
        p.put("ibex.softroce.cm.maxRetries", "6");
        p.put("ibex.softroce.cm.caAckDelay", Integer.toString(caAckDelay));
        // a receiver without demand stalls its sender in RNR back-off for as long as it likes: with rnr_retry 7
        // the soft transport waits it out without using retry_cnt (as rxe does), so no retry workaround is set
        p.putAll(extra);
        return new SoftRoceProvider().open(ProviderConfig.of(p));
    }

    RdmaServer rdmaServer() {
        return RdmaServer.create().runOn(server).host(SERVER_IP).port(0);
    }

    RdmaClient rdmaClient(DisposableServer s) {
        return RdmaClient.create().runOn(client).remoteAddress(new InetSocketAddress(SERVER_IP, s.port()));
    }

    /** Live CM ids and QPs of both fabrics (while the loops run: loop-level resources stay). */
    int ids() {
        return serverFabric.resources().get(ResourceKind.CM_ID) + clientFabric.resources().get(ResourceKind.CM_ID);
    }

    int qps() {
        return serverFabric.resources().get(ResourceKind.QUEUE_PAIR)
                + clientFabric.resources().get(ResourceKind.QUEUE_PAIR);
    }

    /** Waits until no connection, listener or QP is left on either host and no buffer is held. */
    void awaitQuiet() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(ids()).as("CM ids").isZero();
            assertThat(qps()).as("QPs").isZero();
        });
        assertNoLeaks();
    }

    void assertNoLeaks() {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(server.bufferLeaks()).as("server buffers").isEmpty();
            assertThat(client.bufferLeaks()).as("client buffers").isEmpty();
        });
    }

    @Override
    public void close() {
        try {
            server.close();
            client.close();
            assertThat(serverFabric.resources().userResources()).as(serverFabric.resources().toString()).isZero();
            assertThat(clientFabric.resources().userResources()).as(clientFabric.resources().toString()).isZero();
            assertThat(uncaught).as("uncaught on the loops").isEmpty();
        } finally {
            serverFabric.close();
            clientFabric.close();
        }
    }
}
