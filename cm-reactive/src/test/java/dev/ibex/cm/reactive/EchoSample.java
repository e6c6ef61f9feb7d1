package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoopGroup;
import java.time.Duration;
import reactor.core.publisher.Flux;

/**
 * The smallest complete program: an echo server and a client that sends three messages and prints the echoes.
 * Run it with soft-roce on loopback: {@code -Dibex.provider=soft-roce}; two processes need distinct addresses
 * ({@code -Dibex.softroce.devices=soft0=127.0.0.2}).
 */
public final class EchoSample {
    private EchoSample() {}

    public static void main(String[] args) {
        try (EventLoopGroup loops = EventLoopGroup.open(null)) {
            run(loops, "127.0.0.1").forEach(System.out::println);
        }
    }

    /** Echoes "one", "two", "three" through a server on {@code host}; returns what came back. */
    static java.util.List<String> run(EventLoopGroup loops, String host) {
        DisposableServer server = RdmaServer.create().runOn(loops).host(host).port(7471)
                .handle(conn -> conn.send(conn.receive()))                      // echo every message back
                .bindNow();
        try {
            RdmaConnection conn = RdmaClient.create().runOn(loops).host(host).port(server.port()).connectNow();
            return conn.receive().map(Message::asString).take(3)                 // read the echoes ...
                    .mergeWith(conn.send(Flux.just("one", "two", "three")).then(reactor.core.publisher.Mono.empty()))
                    .collectList()
                    .doFinally(s -> conn.dispose())
                    .block(Duration.ofSeconds(10));
        } finally {
            server.disposeNow();
        }
    }
}
