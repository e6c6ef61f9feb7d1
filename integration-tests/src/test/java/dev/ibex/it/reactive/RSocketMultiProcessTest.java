package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RSocket over Ibex with server and client in separate JVMs on soft-roce (server 127.0.0.2, client 127.0.0.3): kill
 * -9 of the server while a request-response is outstanding fails that request within RSocket's keepalive interval
 * plus RC's retry bound — no hang — and the transport connection ends with the typed cause. Transport timers at a tenth (the QP's local
 * ACK timeout 4.096 µs × 2^18 ≈ 1.07 s scaled to 107 ms; retry_cnt 6: the retry bound is 7 × 107 ms ≈ 0.75 s).
 * Every wait is bounded; the processes are killed after the test.
 */
class RSocketMultiProcessTest {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    static final Duration LIMIT = Duration.ofSeconds(90);
    static final long KEEPALIVE_MS = 500;
    static final long RETRY_BOUND_MS = 7 * 107;

    private final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String ip, String... args) {
        PeerProcess p = PeerProcess.start(name, RSocketPeer.class, List.of(
                "ibex.provider=soft-roce",
                "ibex.softroce.devices=" + name + "=" + ip,
                "ibex.softroce.port=" + udpPort,
                "ibex.softroce.timerScale=0.1",
                "ibex.softroce.cm.caAckDelay=18"), args);
        processes.add(p);
        return p;
    }

    @Test
    void killingTheServerWithARequestOutstandingFailsItWithinTheRetryBound() {
        PeerProcess server = start("srv", SERVER_IP, "server", SERVER_IP, "0");
        String port = server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
        PeerProcess client = start("cli", CLIENT_IP, "client", SERVER_IP, port, Long.toString(KEEPALIVE_MS));
        client.await("ECHO OK", LIMIT);
        server.await("HOLDING", LIMIT); // the request is outstanding at the server
        server.kill();
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        String failed = client.line("FAILED ");
        // RSocket 1.1 fails what is outstanding with ClosedChannelException whatever ended the connection ...
        assertThat(failed).as(client.output()).isNotNull().contains("java.nio.channels.ClosedChannelException");
        // ... and the transport's typed cause: RC's retries ran out on the next keepalive frame
        assertThat(client.await("TRANSPORT ", LIMIT)).containsAnyOf("ConnectionFailedException",
                "WorkCompletionException").contains("RETRY_EXC_ERR");
        long ms = Long.parseLong(failed.split(" ")[1]);
        // from the request, which waited for the kill (a JVM exit is quick), then keepalive + retry bound; generous
        // for a loaded machine, far from a hang
        assertThat(ms).as(failed).isLessThan(KEEPALIVE_MS + RETRY_BOUND_MS + 15_000);
    }
}
