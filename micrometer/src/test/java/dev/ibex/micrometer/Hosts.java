package dev.ibex.micrometer;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.Map;

/**
 * A server fabric (device {@code srv} on 127.0.0.2) and a client fabric ({@code cli} on 127.0.0.3) on soft-roce, on a
 * free UDP port, with one loop each ({@code srv-loop-0}, {@code cli-loop-0}); closing closes both.
 */
final class Hosts implements AutoCloseable {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";

    final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
    final Fabric serverFabric = open("srv=" + SERVER_IP);
    final Fabric clientFabric = open("cli=" + CLIENT_IP);
    final EventLoopGroup server = EventLoopGroup.of(serverFabric, options("srv-loop"));
    final EventLoopGroup client = EventLoopGroup.of(clientFabric, options("cli-loop"));

    private static LoopOptions options(String name) {
        return LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(2)).withThreadName(name)
                .withBuffers(LoopOptions.DEFAULT.buffers().withBufferSize(4096).withSlabs(64, 1024));
    }

    private Fabric open(String devices) {
        return new SoftRoceProvider().open(ProviderConfig.of(Map.of("ibex.softroce.port", Integer.toString(udpPort),
                "ibex.softroce.devices", devices, "ibex.softroce.timerScale", "0.1",
                "ibex.softroce.cm.timings", "fast", "ibex.softroce.cm.caAckDelay", "18")));
    }

    @Override
    public void close() {
        try {
            server.close();
            client.close();
        } finally {
            serverFabric.close();
            clientFabric.close();
        }
    }
}
