package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** BlockHound is active for every test of this module, on the loops of both providers. */
class BlockHoundTest {

    @Test
    void blockingInAHandlerOnASoftRoceLoopIsCaught() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        try (SoftHosts hosts = new SoftHosts()) {
            DisposableServer server = hosts.rdmaServer()
                    .handle(c -> Mono.fromRunnable(() -> Mono.delay(Duration.ofMillis(10)).block())
                            .doOnError(errors::add).then())
                    .bindNow();
            hosts.rdmaClient(server).connectNow();
            await().until(() -> !errors.isEmpty());
            assertThat(errors.get(0)).isInstanceOf(BlockingOperationError.class);
            server.disposeNow();
            hosts.awaitQuiet();
        }
    }

    @Test
    void offloadingWithPublishOnIsFine() {
        try (SoftHosts hosts = new SoftHosts()) {
            DisposableServer server = hosts.rdmaServer()
                    .handle(c -> c.send(c.receive().map(Message::asString)
                            .publishOn(Schedulers.boundedElastic())
                            .map(s -> Mono.just(s.toUpperCase()).block())))     // blocking is allowed off the loop
                    .bindNow();
            RdmaConnection c = hosts.rdmaClient(server).connectNow();
            assertThat(c.receive().map(Message::asString).next()
                    .mergeWith(c.send(Mono.just("shout")).then(Mono.empty())).blockFirst(Duration.ofSeconds(10)))
                    .isEqualTo("SHOUT");
            c.disconnect().block(Duration.ofSeconds(10));
            server.disposeNow();
            hosts.awaitQuiet();
        }
    }
}
