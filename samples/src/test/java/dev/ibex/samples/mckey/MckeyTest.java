package dev.ibex.samples.mckey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The mckey port against itself over soft-roce. soft-roce refuses multicast joins for now (MULTICAST_ERROR,
 * EOPNOTSUPP); until it joins, the test stops there, saying so, after checking the port reports the refusal.
 */
class MckeyTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void aSenderReachesTwoReceivingEndpoints() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Mckey> receiver = SampleThread.start(Mckey::new,
                hosts.server("-m", "239.1.1.9", "-b", SoftRoceHosts.SERVER, "-c", "2", "-C", "10"));
        try {
            receiver.command().receiving().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(receiver.exitCode(LIMIT)).isNotZero();
            assertThat(receiver.out()).contains("mckey: event: RDMA_CM_EVENT_MULTICAST_ERROR");
            assumeFalse(receiver.out().contains("MULTICAST_ERROR"),
                    "soft-roce refuses multicast joins for now:\n" + receiver.output());
        }
        SampleThread<Mckey> sender = SampleThread.start(Mckey::new, hosts.client("-m", "239.1.1.9", "-b",
                SoftRoceHosts.CLIENT, "-s", "-o", "-C", "10", "--pause-ms", "100"));
        assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
        assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
        assertThat(receiver.out().lines()).containsSubsequence("mckey: starting server", "mckey: joining",
                "mckey: joined dgid: ::ffff:239.1.1.9 mlid 0x0 sl 0", "receiving data transfers",
                "data transfers complete", "test complete", "return status 0");
        assertThat(sender.out().lines()).containsSubsequence("mckey: starting client", "initiating data transfers",
                "data transfers complete", "return status 0");
    }
}
