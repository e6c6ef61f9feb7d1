package dev.ibex.samples.mckey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The mckey port against itself over soft-roce: a receiver joins, a send-only sender reaches it. */
class MckeyTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void aSenderReachesTwoReceivingEndpoints() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Mckey> receiver = SampleThread.start(Mckey::new,
                hosts.server("-m", "239.1.1.9", "-b", SoftRoceHosts.SERVER, "-c", "2", "-C", "10"));
        receiver.command().receiving().get(30, TimeUnit.SECONDS); // soft-roce joins (issue 13): no gate any more
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
