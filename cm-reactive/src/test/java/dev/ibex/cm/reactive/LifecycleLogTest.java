package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.CLIENT_IP;
import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RejectReason;
import dev.ibex.cm.buffer.RemoteBuffer;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Lifecycle logging like reactor-netty's: one logger per component ({@code RdmaServer}, {@code RdmaClient},
 * {@code RdmaConnection}, {@code RdmaMulticast}); connect, accept, reject, close, join and leave at DEBUG/INFO with the
 * peer and the reason; failures at WARN with their cause.
 */
class LifecycleLogTest {
    static final Duration WAIT = Duration.ofSeconds(15);

    final SoftHosts hosts = new SoftHosts();

    @AfterEach
    void close() {
        hosts.close();
    }

    @Test
    void connectAcceptRejectCloseAndFailuresAreLoggedAtTheirLevelsWithPeerAndReason() {
        try (LogCapture server = new LogCapture(RdmaServer.class.getName(), Level.DEBUG);
                LogCapture client = new LogCapture(RdmaClient.class.getName(), Level.DEBUG);
                LogCapture connection = new LogCapture(RdmaConnection.class.getName(), Level.DEBUG)) {
            DisposableServer s = hosts.rdmaServer()
                    .accept(req -> Mono.just(req.privateData().length > 0 && req.privateData()[0] == 'n'
                            ? AcceptDecision.reject(RejectReason.POLICY_FAILED.encode("not on the list"))
                            : AcceptDecision.accept()))
                    .bindNow();
            RdmaClient rc = hosts.rdmaClient(s);
            RdmaConnection c = rc.connectNow();
            assertThatThrownBy(() -> rc.privateData(new byte[] {'n'}).connectNow())
                    .isInstanceOf(RdmaConnectException.class);
            // an RDMA WRITE to a key nobody gave out breaks the connection
            assertThatThrownBy(() -> c.write(new RemoteBuffer(0x10000, 0x1234_5600, 64), 0, "x").block(WAIT))
                    .isNotNull();
            await().atMost(WAIT).until(c::isDisposed);
            s.disposeNow(WAIT);

            String peer = CLIENT_IP + ":";
            String listening = "INFO RdmaServer[/" + SERVER_IP + ":" + s.port() + "]";
            await().atMost(WAIT).untilAsserted(() -> assertThat(server.lines())
                    .contains(listening + " listening (provider soft-roce)", listening + " stopped listening"));
            assertThat(server.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG accepting a connection request from " + peer))
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG rejected a connection request from " + peer)
                            .endsWith("POLICY_FAILED not on the list"));
            String target = SERVER_IP + ":" + s.port();
            assertThat(client.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [cli-loop-0 " + peer).contains("-> " + target
                            + "] connected in "))
                    .anySatisfy(l -> assertThat(l).startsWith("WARN connecting to " + target + " failed (REJECTED): ")
                            .contains("not on the list"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(connection.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [cli-loop-0 " + peer).endsWith("established"))
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [srv-loop-0 " + target + " <- " + peer)
                            .endsWith("established"))
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [cli-loop-0 ").contains("closed: "))
                    .anySatisfy(l -> assertThat(l).startsWith("WARN [").contains("failed: ")));
        }
    }

    @Test
    void joinAndLeaveAreLoggedWithTheGroup() {
        try (LogCapture multicast = new LogCapture(RdmaMulticast.class.getName(), Level.DEBUG)) {
            InetSocketAddress group = new InetSocketAddress("239.1.7.9", 0);
            RdmaMembership m = RdmaMulticast.create().runOn(hosts.client).host(CLIENT_IP).joinNow(group);
            m.leave().block(WAIT);
            await().atMost(WAIT).untilAsserted(() -> assertThat(multicast.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [cli-loop-0 " + CLIENT_IP + "] joined 239.1.7.9:0"))
                    .anySatisfy(l -> assertThat(l).startsWith("DEBUG [cli-loop-0 " + CLIENT_IP + "] left 239.1.7.9:0")));
            assertThatThrownBy(() -> RdmaMulticast.create().runOn(hosts.client).host(CLIENT_IP)
                    .joinNow(new InetSocketAddress("10.1.1.1", 0))).isInstanceOf(IllegalArgumentException.class);
            assertThat(multicast.lines()).anySatisfy(l -> assertThat(l).startsWith("WARN joining 10.1.1.1:0 from "
                    + CLIENT_IP + " failed: java.lang.IllegalArgumentException"));
        }
    }
}
