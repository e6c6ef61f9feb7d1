package dev.ibex.samples.udaddy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The udaddy port against itself over soft-roce: SIDR resolution, datagrams and replies per client QP. */
class UdaddyTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void fourClientQpsSendAndGetTheirReplies() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Udaddy> server = SampleThread.start(Udaddy::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "--port", "7174", "-c", "4", "-C", "20"));
        server.command().listening().get(30, TimeUnit.SECONDS);
        SampleThread<Udaddy> client = SampleThread.start(Udaddy::new, hosts.client("-s", SoftRoceHosts.SERVER,
                "-b", SoftRoceHosts.CLIENT, "--port", "7174", "-c", "4", "-C", "20"));

        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(server.out().lines()).containsSubsequence("udaddy: starting server", "receiving data transfers",
                "sending replies", "data transfers complete", "test complete", "return status 0");
        assertThat(client.out().lines()).containsSubsequence("udaddy: starting client", "udaddy: connecting",
                "initiating data transfers", "receiving data transfers", "data transfers complete", "test complete",
                "return status 0");
    }

    @Test
    void aLookupWithoutServiceIsUnreachable() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Udaddy> other = SampleThread.start(Udaddy::new,
                hosts.server("-b", SoftRoceHosts.SERVER, "--port", "7184"));
        try {
            other.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Udaddy> client = SampleThread.start(Udaddy::new, hosts.client("-s", SoftRoceHosts.SERVER,
                    "-b", SoftRoceHosts.CLIENT, "--port", "7185"));
            assertThat(client.exitCode(LIMIT)).as(client.output()).isNotZero();
            assertThat(client.out()).contains("udaddy: event: RDMA_CM_EVENT_UNREACHABLE");
        } finally {
            other.command().stop();
        }
    }

    @Test
    void bothRolesNeedABindAddress() {
        SampleThread<Udaddy> s = SampleThread.start(Udaddy::new, List.of("-c", "1"));
        assertThat(s.exitCode(LIMIT)).isEqualTo(2);
        assertThat(s.err()).contains("Missing required option: '-b");
    }
}
