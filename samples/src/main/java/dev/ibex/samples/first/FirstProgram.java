package dev.ibex.samples.first;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The README's first program: an RDMA echo server and a client in one process, on the software provider over
 * loopback (no RDMA device, no root). Copy it into a project that depends on {@code dev.ibex:cm-reactive} and
 * {@code dev.ibex:soft-roce} (after {@code mvn install} in the Ibex checkout; see the README) and run it:
 *
 * <pre>
 * [one, two, three]
 * </pre>
 *
 * <p>On a machine with an RDMA device, open {@code "rdma-core"} and use the device's address. The two-process
 * version is {@link EchoServer} and {@link EchoClient}.
 */
public final class FirstProgram {
    private FirstProgram() {}

    /** {@code [host [provider]]}: default 127.0.0.1 on soft-roce; on a real device its address and rdma-core. */
    public static void main(String[] args) {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        String provider = args.length > 1 ? args[1] : "soft-roce";
        try (EventLoopGroup loops = EventLoopGroup.open(provider)) {           // or "rdma-core" on a real device
            System.out.println(echo(loops, host));
        }
    }

    /** Echoes "one", "two", "three" through a server on {@code host} (an address of the device); returns them. */
    public static List<String> echo(EventLoopGroup loops, String host) {
        DisposableServer server = RdmaServer.create().runOn(loops).host(host).port(7471)
                .handle(conn -> conn.send(conn.receive()))                    // echo: demand = receive credits
                .bindNow();
        try {
            RdmaConnection conn = RdmaClient.create().runOn(loops).host(host).port(server.port()).connectNow();
            return conn.receive().map(Message::asString).take(3)              // the echoes, as they come back
                    .mergeWith(conn.send(Flux.just("one", "two", "three")).then(Mono.empty()))
                    .collectList()
                    .doFinally(signal -> conn.dispose())
                    .block(Duration.ofSeconds(10));
        } finally {
            server.disposeNow();
        }
    }
}
