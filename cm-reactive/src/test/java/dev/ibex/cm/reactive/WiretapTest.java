package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** {@code wiretap(true)}: CM outcomes, connection events and messages (hex-dumped up to a cap) per connection. */
class WiretapTest {
    static final Duration WAIT = Duration.ofSeconds(15);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void logsCmEventsAndMessagesWithAHexDumpUnderItsOwnLoggers() {
        try (LogCapture serverTap = new LogCapture("dev.ibex.wiretap.server", Level.DEBUG);
                LogCapture clientTap = new LogCapture("dev.ibex.wiretap.client", Level.DEBUG)) {
            DisposableServer server = hosts.rdmaServer().wiretap(true)
                    .accept(req -> Mono.just(new String(req.privateData(), StandardCharsets.UTF_8).startsWith("no")
                            ? AcceptDecision.reject(null) : AcceptDecision.accept()))
                    .handle(c -> c.send(c.receive())).bindNow();
            RdmaClient client = hosts.rdmaClient(server).wiretap(true);
            RdmaConnection c = client.connectNow();
            String echoed = c.receive().next().map(Message::asString)
                    .doOnSubscribe(s -> c.send(Mono.just("hello, wiretap")).subscribe()).block(WAIT);
            assertThat(echoed).isEqualTo("hello, wiretap");
            byte[] big = new byte[200];
            c.send(Mono.just(big)).block(WAIT);
            assertThatThrownBy(() -> client.privateData("no".getBytes(StandardCharsets.UTF_8)).connectNow())
                    .isInstanceOf(dev.ibex.cm.RdmaConnectException.class);
            c.disconnect().block(WAIT);
            server.disposeNow(WAIT);

            String to = "-> " + SERVER_IP + ":" + server.port() + "]";
            await().atMost(WAIT).untilAsserted(() -> assertThat(clientTap.lines()).anySatisfy(
                    l -> assertThat(l).contains(to + " CLOSED")));
            assertThat(clientTap.lines()).allSatisfy(l -> assertThat(l).startsWith("DEBUG ["));
            assertThat(clientTap.lines()).anySatisfy(l -> assertThat(l).contains("CONNECT"))
                    .anySatisfy(l -> assertThat(l).contains(to + " ESTABLISHED"))
                    .anySatisfy(l -> assertThat(l).contains(to + " SEND: 14B\n0000  68 65 6c 6c 6f 2c 20 77 69 72 65 74 "
                            + "61 70        |hello, wiretap|"))
                    .anySatisfy(l -> assertThat(l).contains(to + " RECEIVED: 14B").contains("|hello, wiretap|"))
                    // 200 bytes: four rows of 16 dumped (the cap of 64), the rest counted
                    .anySatisfy(l -> assertThat(l).contains(to + " SEND: 200B\n0000  00 00").contains("\n0030  ")
                            .doesNotContain("\n0040  ").endsWith("(136 more bytes)"))
                    .anySatisfy(l -> assertThat(l).contains("CONNECT FAILED REJECTED"));
            assertThat(serverTap.lines()).anySatisfy(l -> assertThat(l).contains("REQUEST"))
                    .anySatisfy(l -> assertThat(l).contains("ACCEPT"))
                    .anySatisfy(l -> assertThat(l).contains("REJECT: by the accept policy"))
                    .anySatisfy(l -> assertThat(l).contains("<- ").contains(" RECEIVED: 14B"))
                    .anySatisfy(l -> assertThat(l).contains("<- ").contains(" SEND: 14B"));
        }
    }

    @Test
    void aCategoryOfItsOwnAndNoDumpLogsLengthsOnly() {
        try (LogCapture tap = new LogCapture("my.tap", Level.DEBUG)) {
            DisposableServer server = hosts.rdmaServer().handle(c -> c.receive().then()).bindNow();
            RdmaConnection c = hosts.rdmaClient(server).wiretap("my.tap", 0).connectNow();
            c.send(Mono.just("secret")).block(WAIT);
            assertThat(tap.lines()).anySatisfy(l -> assertThat(l).endsWith(" SEND: 6B"))
                    .noneSatisfy(l -> assertThat(l).contains("secret"));
            c.dispose();
            server.disposeNow(WAIT);
        }
        assertThatThrownBy(() -> RdmaClient.create().wiretap("x", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutTheWiretapNothingIsLoggedThere() {
        try (LogCapture tap = new LogCapture("dev.ibex.wiretap", Level.TRACE)) {
            DisposableServer server = hosts.rdmaServer().handle(c -> c.send(c.receive())).bindNow();
            RdmaConnection c = hosts.rdmaClient(server).connectNow();
            c.send(Mono.just("quiet")).block(WAIT);
            c.dispose();
            server.disposeNow(WAIT);
            assertThat(tap.lines()).isEmpty();
        }
    }
}
