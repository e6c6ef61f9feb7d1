package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.rping.Rping;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rping port against rdma-core's rping on rxe0: the Java client against {@code rping -s}, {@code rping -c}
 * against the Java server. Both validate the ping data ({@code -V}) and print it ({@code -v}).
 */
@VmTest
class RpingInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final int PINGS = 10;

    private final String addr = SoftRoceVm.current().address();

    @Test
    void javaClientAgainstTheCServer() {
        try (ToolProcess server = ToolProcess.start("rping", "-s", "-a", addr, "-p", "7190", "-S", "100", "-v")) {
            RdmaCmListeners.awaitListening(7190, LIMIT, server);
            JavaSample<Rping> client = JavaSample.start(Rping::new, "-c", "-a", addr, "-p", "7190",
                    "-C", Integer.toString(PINGS), "-S", "100", "-v", "-V");
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertPings(client.out(), "ping data: ");
            assertPings(server.output(), "server ping data: ");
        }
    }

    @Test
    void cClientAgainstTheJavaServer() throws Exception {
        JavaSample<Rping> server = JavaSample.start(Rping::new, "-s", "-a", addr, "-p", "7191", "-v");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("rping", "-c", "-a", addr, "-p", "7191",
                    "-C", Integer.toString(PINGS), "-S", "100", "-v", "-V")) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
                assertThat(client.output()).doesNotContain("data mismatch");
                assertPings(client.output(), "ping data: ");
            }
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertPings(server.out(), "server ping data: ");
        } finally {
            server.command().stop();
        }
    }

    /** Every ping's data, as the C client generates it: "rdma-ping-N: " and letters from 'A'+N. */
    private static void assertPings(String output, String prefix) {
        List<String> pings = output.lines().filter(l -> l.startsWith(prefix)).toList();
        assertThat(pings).as(output).hasSize(PINGS);
        for (int n = 0; n < PINGS; n++) {
            String head = "rdma-ping-" + n + ": ";
            String expected = head + letters('A' + n, 100 - head.length() - 1);
            assertThat(pings.get(n)).isEqualTo(prefix + expected);
        }
    }

    private static String letters(int from, int n) {
        StringBuilder b = new StringBuilder();
        int c = from;
        for (int i = 0; i < n; i++) {
            b.append((char) c);
            c = c == 'z' ? 'A' : c + 1;
        }
        return b.toString();
    }
}
