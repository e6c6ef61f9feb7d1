package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

class SmokeTest {
    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void echo() {
        DisposableServer server = hosts.rdmaServer().handle(c -> c.send(c.receive())).bindNow();
        RdmaConnection c = hosts.rdmaClient(server).connectNow();
        StepVerifier.create(c.send(Flux.just("a", "b", "c")).thenMany(c.receive().map(Message::asString).take(3)))
                .expectNext("a", "b", "c")
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        c.disconnect().block(Duration.ofSeconds(10));
        server.disposeNow();
        hosts.awaitQuiet();
        assertThat(server.activeConnections()).isZero();
    }
}
