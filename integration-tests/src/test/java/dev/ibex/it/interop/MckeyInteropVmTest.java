package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.mckey.Mckey;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The mckey port against rdma-core's mckey on rxe0 (rxe loops multicast back to QPs on the same device):
 * the C sender to the Java receiver, the Java sender (a send-only member) to the C receiver.
 */
@VmTest
class MckeyInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private final String addr = SoftRoceVm.current().address();

    @Test
    void cSenderToTheJavaReceiver() throws Exception {
        JavaSample<Mckey> receiver = JavaSample.start(Mckey::new, "-m", "239.1.2.1", "-b", addr, "-C", "10");
        try {
            receiver.command().receiving().get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            try (ToolProcess sender = ToolProcess.start("mckey", "-m", "239.1.2.1", "-b", addr, "-s", "-C", "10")) {
                assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
                assertThat(sender.output()).contains("mckey: joined dgid: ::ffff:239.1.2.1");
            }
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            assertThat(receiver.out().lines()).containsSubsequence("mckey: joined dgid: ::ffff:239.1.2.1 mlid 0x0 sl 0",
                    "receiving data transfers", "data transfers complete", "return status 0");
        } finally {
            receiver.command().stop();
        }
    }

    @Test
    void javaSendOnlySenderToTheCReceiver() {
        try (ToolProcess receiver = ToolProcess.start("mckey", "-m", "239.1.2.2", "-b", addr, "-C", "10")) {
            receiver.awaitLine("receiving data transfers", LIMIT);
            JavaSample<Mckey> sender = JavaSample.start(Mckey::new, "-m", "239.1.2.2", "-b", addr, "-s", "-o",
                    "-C", "10", "--pause-ms", "500");
            assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            assertThat(receiver.output().lines()).containsSubsequence("receiving data transfers",
                    "data transfers complete", "return status 0");
        }
    }
}
