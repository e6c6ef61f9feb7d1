package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.net.FreePort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reactive echo with server and client in separate JVMs on soft-roce: each JVM is one soft "host" (server
 * 127.0.0.2, client 127.0.0.3, the same free UDP port), talking RoCEv2 over loopback UDP. Every wait is bounded;
 * the processes are killed after each test.
 */
class ReactiveMultiProcessTest {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    static final Duration LIMIT = Duration.ofSeconds(60);

    private final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP);
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String ip, String... args) {
        PeerProcess p = PeerProcess.start(name, List.of(
                "ibex.provider=soft-roce",
                "ibex.softroce.devices=" + name + "=" + ip,
                "ibex.softroce.port=" + udpPort,
                // CM and transport timers at a tenth: a dead peer is noticed in seconds; the CM keeps its
                // default retries, as a cold JVM answers its first request slowly
                "ibex.softroce.timerScale=0.1",
                "ibex.softroce.cm.caAckDelay=18"), args);
        processes.add(p);
        return p;
    }

    private String startServer() {
        PeerProcess server = start("srv", SERVER_IP, "server", SERVER_IP, "0");
        return server.await("LISTENING ", LIMIT).substring("LISTENING ".length());
    }

    @Test
    void echoWithPrivateDataRdmaWriteAndReadAndACleanDisconnect() {
        String port = startServer();
        PeerProcess server = processes.getFirst();
        PeerProcess client = start("cli", CLIENT_IP, "client", SERVER_IP, port, "20");
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(client.output().lines()).containsSubsequence("ECHO OK 20", "RDMA OK", "DISCONNECTED",
                "OUT OF BOUNDS REFUSED");
        assertThat(server.await("ACCEPTED ", LIMIT)).isEqualTo("ACCEPTED hello");
        server.await("CLOSED", LIMIT); // the server saw the disconnect and released the connection
    }

    @Test
    void whenTheServerJvmDiesTheClientConnectionEndsWithATypedError() {
        String port = startServer();
        PeerProcess server = processes.getFirst();
        PeerProcess client = start("cli", CLIENT_IP, "watch", SERVER_IP, port);
        client.await("CONNECTED", LIMIT);
        server.kill();
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        // no DREQ came: the transport's retries ran out (typed WorkCompletionException), the connection closed
        assertThat(client.output()).contains("EVENT ERROR dev.ibex.cm").contains("EVENT CLOSED").contains("ENDED");
    }
}
