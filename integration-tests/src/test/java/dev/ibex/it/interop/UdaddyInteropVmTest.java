package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.udaddy.Udaddy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The udaddy port against rdma-core's udaddy on rxe0, in both roles: 4 client QPs, 20 datagrams and 20 replies
 * each. udaddy's port is fixed (7174), so the two cases run one after the other.
 */
@VmTest
class UdaddyInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private final String addr = SoftRoceVm.current().address();

    @Test
    void cClientAgainstTheJavaServer() throws Exception {
        JavaSample<Udaddy> server = JavaSample.start(Udaddy::new, "-b", addr, "-c", "4", "-C", "20");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("udaddy", "-s", addr, "-b", addr, "-c", "4", "-C", "20")) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
                assertThat(client.output().lines()).containsSubsequence("initiating data transfers",
                        "receiving data transfers", "data transfers complete", "return status 0");
            }
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.out().lines()).containsSubsequence("receiving data transfers", "sending replies",
                    "data transfers complete", "return status 0");
        } finally {
            server.command().stop();
        }
    }

    @Test
    void javaClientAgainstTheCServer() {
        try (ToolProcess server = ToolProcess.start("udaddy", "-b", addr, "-c", "4", "-C", "20")) {
            RdmaCmListeners.awaitListening(7174, LIMIT, server);
            JavaSample<Udaddy> client = JavaSample.start(Udaddy::new, "-s", addr, "-b", addr, "-c", "4", "-C", "20");
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.output().lines()).containsSubsequence("receiving data transfers", "sending replies",
                    "data transfers complete", "return status 0");
        }
    }
}
