package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.apm.Apm;
import dev.ibex.softroce.net.FreePort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code apm} sample's server and client in two JVMs on soft-roce, each "host" with two ports (server
 * 127.0.0.2 / 127.0.0.12, client 127.0.0.3 / 127.0.0.13): once both print that their QP is armed, the primary path
 * is cut from outside both processes — a line appended to the control file both fabrics follow — and both migrate,
 * finish the exchange over the alternate and disconnect over it (the CM follows the migration). Every wait is bounded;
 * the processes are killed after the test.
 */
class ApmMultiProcessTest {
    static final String SERVER_IP = "127.0.0.2";
    static final String CLIENT_IP = "127.0.0.3";
    static final Duration LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final int udpPort = FreePort.on(SERVER_IP, CLIENT_IP, "127.0.0.12", "127.0.0.13");
    private final List<PeerProcess> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(PeerProcess::close);
    }

    private PeerProcess start(String name, String devices, Path control, String... args) {
        PeerProcess p = PeerProcess.start(name, Apm.class, List.of(
                "ibex.provider=soft-roce",
                "ibex.softroce.devices=" + name + "=" + devices,
                "ibex.softroce.port=" + udpPort,
                "ibex.softroce.timerScale=0.1",
                "ibex.softroce.cm.caAckDelay=18",
                "ibex.softroce.fault.control=" + control), args);
        processes.add(p);
        return p;
    }

    @Test
    void thePrimaryIsCutFromOutsideAndBothJvmsMigrate() throws Exception {
        Path control = dir.resolve("faults.ctl");
        Files.writeString(control, "# both fabrics follow this file\n");
        PeerProcess server = start("srv", SERVER_IP + "/127.0.0.12", control, "-s", "-b", SERVER_IP, "-c", "60",
                "-l", "1000", "-w", "25", "--timeout", "80");
        server.await("listening on", LIMIT);
        PeerProcess client = start("cli", CLIENT_IP + "/127.0.0.13", control, "-a", SERVER_IP, "-c", "60", "-l",
                "1000", "-w", "25", "--timeout", "80");
        client.await("QP path armed", LIMIT);
        server.await("QP path armed", LIMIT);
        Files.writeString(control, "cut " + CLIENT_IP + " " + SERVER_IP + "\n", StandardOpenOption.APPEND);
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(client.output()).contains("loading alt path - local port: 2, dgid: 127.0.0.12")
                .contains("QP path migrated to 127.0.0.13 -> 127.0.0.12 (port 2)")
                .contains("60 messages of 1000 bytes exchanged; path now 127.0.0.13 -> 127.0.0.12 (port 2)");
        assertThat(server.output()).contains("QP path migrated to 127.0.0.12 -> 127.0.0.13 (port 2)");
    }
}
