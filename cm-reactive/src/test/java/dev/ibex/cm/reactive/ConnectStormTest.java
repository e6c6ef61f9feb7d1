package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Regression: hundreds of concurrent connects from one client ran all at once and the server's per-source
 * half-open bound refused what overflowed it. The client's loop now runs at most maxConcurrentConnects at once
 * and queues the rest: a storm is slower, never refused. (1,000 at a time is in the scale benchmark.)
 */
class ConnectStormTest {
    @Test
    void threeHundredConcurrentConnectsFromOneClientAllSucceed() {
        try (SoftHosts hosts = new SoftHosts()) {
            DisposableServer server = hosts.rdmaServer().bindNow();
            long t0 = System.nanoTime();
            Map<String, Integer> failures = new ConcurrentHashMap<>();
            List<RdmaConnection> connections = Flux.range(0, 300)
                    .flatMap(i -> hosts.rdmaClient(server).connectTimeout(Duration.ofSeconds(60)).connect()
                            .onErrorResume(e -> {
                                failures.merge(String.valueOf(e.getMessage()), 1, Integer::sum);
                                return Mono.empty();
                            }), 300)
                    .collectList().block(Duration.ofSeconds(120));
            assertThat(failures).isEmpty();
            assertThat(connections).hasSize(300);
            assertThat(server.refusedRequests()).isZero();
            long t1 = System.nanoTime();
            connections.forEach(RdmaConnection::dispose);
            server.disposeNow(Duration.ofSeconds(60));
            System.out.printf("STORM connect %d ms, dispose %d ms%n", (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000);
        }
    }
}
