package dev.ibex.it.consumer;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.ProviderConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The README's first program as a user's project builds it: an echo server and a client over soft-roce. */
public final class Echo {
    static final String HOST = "127.0.0.53";

    private Echo() {}

    public static void main(String[] args) {
        System.out.println(echo());
    }

    /** Echoes "one", "two", "three" and returns what came back. */
    public static List<String> echo() {
        return echo(false);
    }

    /**
     * {@link #echo()}, with {@code metrics(true)} on the server and the client when {@code metrics}: they record into
     * Micrometer's global registry.
     */
    public static List<String> echo(boolean metrics) {
        // a UDP port of its own, so a build beside other soft-roce users on this host never collides
        ProviderConfig config = ProviderConfig.of(Map.of("ibex.softroce.devices", "soft0=" + HOST,
                "ibex.softroce.port", Integer.toString(freeUdpPort())));
        try (EventLoopGroup loops = EventLoopGroup.open("soft-roce", config, LoopOptions.DEFAULT.withLoops(1))) {
            DisposableServer server = RdmaServer.create().runOn(loops).metrics(metrics).host(HOST).port(7471)
                    .handle(conn -> conn.send(conn.receive()))
                    .bindNow();
            try {
                RdmaConnection conn = RdmaClient.create().runOn(loops).metrics(metrics).host(HOST).port(server.port())
                        .connectNow();
                return conn.receive().map(Message::asString).take(3)
                        .mergeWith(conn.send(Flux.just("one", "two", "three")).then(Mono.empty()))
                        .collectList()
                        .doFinally(signal -> conn.dispose())
                        .block(Duration.ofSeconds(30));
            } finally {
                server.disposeNow();
            }
        }
    }

    private static int freeUdpPort() {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(HOST), 0))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
