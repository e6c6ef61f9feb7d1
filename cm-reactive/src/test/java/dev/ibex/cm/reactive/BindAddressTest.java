package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.CLIENT_IP;
import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaConnectException.Reason;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link RdmaClient#bindAddress} / {@link RdmaClient#localHost}: a client host with two soft-roce devices connects
 * from the one it names (rdma_resolve_addr with a source), as rping -I does; an address without a device fails typed.
 */
class BindAddressTest {
    static final Duration WAIT = Duration.ofSeconds(15);
    /** The client host's second device. */
    static final String SECOND_IP = "127.0.0.5";

    final SoftHosts hosts = new SoftHosts("cli=" + CLIENT_IP + ",cli2=" + SECOND_IP);

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void theConnectionLeavesFromTheBoundAddressAndCarriesTraffic() {
        List<InetAddress> requesters = new CopyOnWriteArrayList<>();
        DisposableServer server = hosts.rdmaServer()
                .accept(req -> {
                    requesters.add(req.peerAddress().getAddress());
                    return Mono.just(AcceptDecision.accept());
                })
                .handle(c -> c.send(c.receive().map(Message::retain)))
                .bindNow();
        for (RdmaClient client : List.of(
                hosts.rdmaClient(server).bindAddress(new InetSocketAddress(SECOND_IP, 0)),
                hosts.rdmaClient(server).localHost(SECOND_IP))) {
            RdmaConnection c = client.connectNow(WAIT);
            assertThat(c.localAddress().getAddress().getHostAddress()).isEqualTo(SECOND_IP);
            assertThat(c.connection().device().device().name()).isEqualTo("cli2");
            StepVerifier.create(c.receive().map(Message::asString).take(1))
                    .then(() -> c.send(Flux.just("over cli2")).subscribe())
                    .expectNext("over cli2")
                    .verifyComplete();
            c.disconnect().block(WAIT);
        }
        assertThat(requesters).extracting(InetAddress::getHostAddress).containsExactly(SECOND_IP, SECOND_IP);
        server.disposeNow();
        hosts.awaitQuiet();
    }

    @Test
    void anAddressWithoutADeviceFailsTheConnectTypedAndLeavesNothing() {
        DisposableServer server = hosts.rdmaServer().handle(c -> Mono.never()).bindNow();
        // a loopback address no soft-roce device owns (local, so ENODEV), and one that is not local at all
        for (String[] bad : List.of(new String[] {NOBODY_IP, "ENODEV"}, new String[] {"192.0.2.77", "EADDRNOTAVAIL"})) {
            StepVerifier.create(hosts.rdmaClient(server).bindAddress(new InetSocketAddress(bad[0], 0)).connect())
                    .expectErrorSatisfies(e -> {
                        assertThat(e).isInstanceOf(RdmaConnectException.class);
                        RdmaConnectException x = (RdmaConnectException) e;
                        assertThat(x.reason()).isEqualTo(Reason.ADDR_ERROR);
                        assertThat(x.errno()).isEqualTo(Errno.valueOf(bad[1]));
                        assertThat(x.getMessage()).contains(bad[0]);
                    })
                    .verify(WAIT);
        }
        // families must match: refused before any native call
        StepVerifier.create(hosts.rdmaClient(server).localHost("::1").connect())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("same family"))
                .verify(WAIT);
        assertThat(server.activeConnections()).isZero();
        server.disposeNow();
        hosts.awaitQuiet();
    }
}
