package dev.ibex.samples.first;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.samples.SampleThread;
import dev.ibex.softroce.net.FreePort;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The README's first program, and its two-process version with both processes on default soft-roce settings. */
class FirstProgramTest {

    @Test
    void theFirstProgramEchoes() {
        int port = FreePort.on("127.0.0.52");
        try (EventLoopGroup loops = EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of(
                "ibex.softroce.devices", "soft0=127.0.0.52", "ibex.softroce.port", Integer.toString(port))),
                LoopOptions.DEFAULT.withLoops(1))) {
            assertThat(FirstProgram.echo(loops, "127.0.0.52")).containsExactly("one", "two", "three");
        }
    }

    @Test
    void aServerAndAClientProcessBothOnDefaultSettingsTalk() throws Exception {
        // default devices (soft0=127.0.0.1) on a UDP port of their own: the server takes 127.0.0.1, the client
        // process finds it taken and moves to the next free loopback address instead of failing
        int port = FreePort.on("127.0.0.1", "127.0.0.2", "127.0.0.3", "127.0.0.4");
        List<String> settings = List.of("--provider", "soft-roce", "-D", "ibex.softroce.port=" + port,
                "--timeout", "60");
        SampleThread<EchoServer> server = SampleThread.start(EchoServer::new, settings);
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> server.out().contains("listening on"));
        assertThat(server.out()).contains("echo server on soft-roce listening on 127.0.0.1:7471");

        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                EchoClient.class.getName()));
        cmd.addAll(settings);
        cmd.addAll(List.of("--host", "127.0.0.1", "hello", "rdma"));
        Process client = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            assertThat(client.waitFor(120, TimeUnit.SECONDS)).as("the client ended").isTrue();
            String out;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(client.getInputStream(),
                    StandardCharsets.UTF_8))) {
                out = r.lines().collect(Collectors.joining("\n"));
            }
            assertThat(client.exitValue()).as(out).isZero();
            assertThat(out).contains("127.0.0.1 is in use on UDP port " + port)
                    .contains("device soft0 is on 127.0.0.2 instead; set ibex.softroce.devices to choose")
                    .contains("connected from 127.0.0.2 (soft-roce) to /127.0.0.1:7471")
                    .contains("echoed: [hello, rdma]");
        } catch (IOException | RuntimeException | AssertionError e) {
            throw e;
        } finally {
            client.destroyForcibly();
            server.command().stop();
        }
        assertThat(server.exitCode(Duration.ofSeconds(30))).isZero();
    }
}
