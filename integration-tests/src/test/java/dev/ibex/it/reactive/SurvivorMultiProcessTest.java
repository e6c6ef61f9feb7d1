package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of a peer on soft-roce (two JVMs): what each kind of survivor notices. The transport notices a dead
 * peer only while it has something outstanding, so a sender fails with PEER_UNRESPONSIVE (RETRY_EXC_ERR) and its
 * {@code receive()} errors — it never completes as if the peer had closed; a connection that only receives, only
 * echoes or is idle stays up unless keepalive is on, and with keepalive it fails with a typed error too.
 */
class SurvivorMultiProcessTest {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    static final Duration LIMIT = Duration.ofSeconds(90);
    static final int KEEPALIVE_MS = 200;

    private final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String ip, String... args) {
        PeerProcess p = PeerProcess.start(name, SurvivorPeer.class, List.of(
                "ibex.provider=soft-roce",
                "ibex.softroce.devices=" + name + "=" + ip,
                "ibex.softroce.port=" + udpPort,
                // transport timers at a tenth: ACK timeout 54 ms, so retries run out within about 0.4 s
                "ibex.softroce.timerScale=0.1",
                "ibex.softroce.cm.caAckDelay=18"), args);
        processes.add(p);
        return p;
    }

    @Test
    void afterKill9OnlySendersAndKeepaliveConnectionsNoticeAndEachFailsTyped() {
        PeerProcess server = start("srv", SERVER_IP, "server", SERVER_IP, "0");
        String port = server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
        PeerProcess client = start("cli", CLIENT_IP, "client", SERVER_IP, port, Integer.toString(KEEPALIVE_MS));
        client.await("CONNECTED", LIMIT);
        long killedAt = System.nanoTime();
        server.kill();
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        String out = client.output();

        // the sender: the transport's retries run out; its receive() fails, it does not complete
        assertThat(out).contains("END send ERROR receive=error ConnectionFailedException PEER_UNRESPONSIVE");
        // with keepalive: probes go unanswered; whichever bound comes first (transport retries or the probe count)
        for (String role : List.of("receive+ka", "echo+ka", "idle+ka")) {
            assertThat(out).containsPattern("END \\Q" + role + "\\E ERROR receive=error ConnectionFailedException "
                    + "(PEER_UNRESPONSIVE|KEEPALIVE)");
        }
        // without keepalive nothing is outstanding, so nothing is noticed: documented, like TCP without keepalive
        assertThat(out).contains("UP receive").contains("UP echo").contains("UP idle")
                .doesNotContain("END receive ").doesNotContain("END echo ").doesNotContain("END idle ");
        long ms = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(ms).as("bounded").isLessThan(LIMIT.toMillis());
    }
}
