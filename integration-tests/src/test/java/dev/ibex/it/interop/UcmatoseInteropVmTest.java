package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.ucmatose.Ucmatose;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ucmatose port against rdma-core's ucmatose on rxe0, in both roles: 4 connections, 20 messages each way. */
@VmTest
class UcmatoseInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private final String addr = SoftRoceVm.current().address();

    @Test
    void cClientAgainstTheJavaServer() throws Exception {
        JavaSample<Ucmatose> server = JavaSample.start(Ucmatose::new, "-b", addr, "-p", "7473", "-c", "4",
                "-C", "20");
        try {
            server.command().listening().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess client = ToolProcess.start("ucmatose", "-s", addr, "-p", "7473", "-c", "4",
                    "-C", "20")) {
                assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
                assertThat(client.output().lines()).containsSubsequence("receiving data transfers", "sending replies",
                        "data transfers complete", "test complete", "return status 0");
            }
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.out().lines()).containsSubsequence("initiating data transfers",
                    "receiving data transfers", "data transfers complete", "disconnected", "return status 0");
        } finally {
            server.command().stop();
        }
    }

    @Test
    void javaClientAgainstTheCServer() {
        try (ToolProcess server = ToolProcess.start("ucmatose", "-b", addr, "-p", "7474", "-c", "4", "-C", "20")) {
            RdmaCmListeners.awaitListening(7474, LIMIT, server);
            JavaSample<Ucmatose> client = JavaSample.start(Ucmatose::new, "-s", addr, "-p", "7474", "-c", "4",
                    "-C", "20");
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            assertThat(server.output().lines()).containsSubsequence("initiating data transfers", "completing sends",
                    "receiving data transfers", "data transfers complete", "cmatose: disconnecting", "disconnected",
                    "return status 0");
        }
    }
}
