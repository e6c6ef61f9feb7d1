package dev.ibex.samples.ucmatose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ucmatose port against itself over soft-roce: connections, messages both ways, the server's disconnect. */
class UcmatoseTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void threeConnectionsExchangeTwentyMessagesEachWay() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Ucmatose> server = SampleThread.start(Ucmatose::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7471", "-c", "3", "-C", "20", "-S", "200"));
        server.command().listening().get(30, TimeUnit.SECONDS);
        SampleThread<Ucmatose> client = SampleThread.start(Ucmatose::new,
                hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7471", "-c", "3", "-C", "20", "-S", "200"));

        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(server.out().lines()).containsSubsequence("cmatose: starting server", "initiating data transfers",
                "completing sends", "receiving data transfers", "data transfers complete", "cmatose: disconnecting",
                "disconnected", "test complete", "return status 0");
        assertThat(client.out().lines()).containsSubsequence("cmatose: starting client", "cmatose: connecting",
                "receiving data transfers", "sending replies", "data transfers complete", "test complete",
                "return status 0");
    }

    @Test
    void aClientWithoutServerEndsWithTheRejectStatus() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Ucmatose> other = SampleThread.start(Ucmatose::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "-p", "7481"));
        try {
            other.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Ucmatose> client = SampleThread.start(Ucmatose::new,
                    hosts.client("-s", SoftRoceHosts.SERVER, "-p", "7482", "-c", "2"));
            assertThat(client.exitCode(LIMIT)).as(client.output()).isEqualTo(8);
            assertThat(client.out()).contains("cmatose: event: RDMA_CM_EVENT_REJECTED, error: 8")
                    .contains("return status 8");
        } finally {
            other.command().stop();
        }
    }
}
