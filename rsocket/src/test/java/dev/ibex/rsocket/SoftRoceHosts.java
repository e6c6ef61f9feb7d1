package dev.ibex.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaServer;
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

/**
 * Two soft-roce "hosts" in one JVM, as RSocket's server and client: a server fabric on 127.0.0.2 and a client fabric
 * on 127.0.0.3 on a free UDP port, the CM's fast timers, unscaled transport timers, one event loop each. {@link #close()} closes both and
 * checks that every CM id, QP and (with leak tracking) registered buffer came back.
 *
 * <p><b>Threading.</b> Test thread; the groups run their own loops.
 */
public final class SoftRoceHosts implements AutoCloseable {
    public static final String SERVER_IP = "127.0.0.2";
    public static final String CLIENT_IP = "127.0.0.3";
    /** An address on loopback where no fabric listens. */
    public static final String NOBODY_IP = "127.0.0.9";

    public final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
    public final Fabric serverFabric;
    public final Fabric clientFabric;
    public final EventLoopGroup server;
    public final EventLoopGroup client;
    public final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private final boolean trackLeaks;

    /** Hosts with 8 KiB buffers (the default size) and, when {@code trackLeaks}, leak tracking on both pools. */
    public SoftRoceHosts(boolean trackLeaks) {
        this(trackLeaks, BufferPool.Options.DEFAULT.bufferSize(), BufferPool.Options.DEFAULT.bufferSize());
    }

    /** Hosts whose pools have buffers of the given sizes (each side splits frames at the smaller). */
    public SoftRoceHosts(boolean trackLeaks, int serverBufferSize, int clientBufferSize) {
        this.trackLeaks = trackLeaks;
        serverFabric = open("srv=" + SERVER_IP);
        clientFabric = open("cli=" + CLIENT_IP);
        server = EventLoopGroup.of(serverFabric, options(serverBufferSize).withThreadName("srv-loop"));
        client = EventLoopGroup.of(clientFabric, options(clientBufferSize).withThreadName("cli-loop"));
    }

    private LoopOptions options(int bufferSize) {
        return LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(2))
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(bufferSize).withLeakTracking(trackLeaks))
                .withUncaughtHandler(uncaught::add);
    }

    private Fabric open(String devices) {
        Map<String, String> p = new HashMap<>();
        p.put("ibex.softroce.port", Integer.toString(udpPort));
        p.put("ibex.softroce.devices", devices);
        // transport timers unscaled: the QP's ACK timeout (CA ACK delay 18: 1.07 s, 7 retries) must survive a loop
        // that a loaded 2-core machine does not schedule for a while (at a tenth, a TCK run under load 20 lost
        // connections to RETRY_EXC_ERR); the CM's fast timings keep connects quick
        p.put("ibex.softroce.cm.timings", "fast");
        p.put("ibex.softroce.cm.responseTimeout", "14");
        p.put("ibex.softroce.cm.maxRetries", "6");
        p.put("ibex.softroce.cm.caAckDelay", "18");
        return new SoftRoceProvider().open(ProviderConfig.of(p));
    }

    /** An RSocket server transport on the server host, any port. */
    public RdmaServerTransport serverTransport() {
        return RdmaServerTransport.create(RdmaServer.create().runOn(server).host(SERVER_IP).port(0));
    }

    /** An RSocket client transport on the client host, to {@code server}. */
    public RdmaClientTransport clientTransport(CloseableRdmaServer server) {
        return clientTransport(server.address());
    }

    public RdmaClientTransport clientTransport(InetSocketAddress server) {
        return RdmaClientTransport.create(RdmaClient.create().runOn(client).remoteAddress(server));
    }

    /** Live CM ids of both fabrics. */
    public int ids() {
        return serverFabric.resources().get(ResourceKind.CM_ID) + clientFabric.resources().get(ResourceKind.CM_ID);
    }

    /** Live QPs of both fabrics. */
    public int qps() {
        return serverFabric.resources().get(ResourceKind.QUEUE_PAIR)
                + clientFabric.resources().get(ResourceKind.QUEUE_PAIR);
    }

    /** Waits until no connection, listener or QP is left on either host and (with tracking) no buffer is held. */
    public void awaitQuiet(Duration limit) {
        await().atMost(limit).untilAsserted(() -> {
            assertThat(ids()).as("CM ids").isZero();
            assertThat(qps()).as("QPs").isZero();
        });
        if (trackLeaks) {
            await().atMost(limit).untilAsserted(() -> {
                assertThat(server.bufferLeaks()).as("server buffers").isEmpty();
                assertThat(client.bufferLeaks()).as("client buffers").isEmpty();
            });
        }
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
