package dev.ibex.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The rping port against itself over soft-roce: two fabrics on two loopback addresses. */
class RpingTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void clientAndServerPingPongValidatedData() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        SampleThread<Rping> server = SampleThread.start(Rping::new,
                hosts.server("-s", "-a", SoftRoceHosts.SERVER, "-p", "7174", "-v"));
        server.command().listening().get(30, TimeUnit.SECONDS);
        SampleThread<Rping> client = SampleThread.start(Rping::new,
                hosts.client("-c", "-a", SoftRoceHosts.SERVER, "-p", "7174", "-C", "5", "-S", "100", "-v", "-V"));
        int clientExit = client.exitCode(LIMIT);
        int serverExit = server.exitCode(LIMIT);
        assertThat(clientExit).as(client.output()).isZero();
        assertThat(serverExit).as(server.output()).isZero();
        List<String> pings = client.out().lines().filter(l -> l.startsWith("ping data: ")).toList();
        assertThat(pings).hasSize(5);
        assertThat(pings.getFirst()).isEqualTo("ping data: rdma-ping-0: " + letters('A', 100 - 13 - 1));
        assertThat(pings.get(4)).startsWith("ping data: rdma-ping-4: EFGH");
        assertThat(server.out().lines().filter(l -> l.startsWith("server ping data: rdma-ping-"))).hasSize(5);
        assertThat(server.err()).contains("server DISCONNECT EVENT...");
    }

    @Test
    void aClientWithoutServerIsRejectedWithReason8() {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        // a server fabric on the address, so that the connect reaches a CM that answers "no listener"
        SampleThread<Rping> idle = SampleThread.start(Rping::new,
                hosts.server("-s", "-a", SoftRoceHosts.SERVER, "-p", "7175"));
        try {
            idle.command().listening().get(30, TimeUnit.SECONDS);
            SampleThread<Rping> client = SampleThread.start(Rping::new,
                    hosts.client("-c", "-a", SoftRoceHosts.SERVER, "-p", "7176", "-C", "1"));
            assertThat(client.exitCode(LIMIT)).isNotZero();
            assertThat(client.err()).contains("cma event RDMA_CM_EVENT_REJECTED, error 8");
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            idle.command().stop();
        }
    }

    @Test
    void argumentsAreCheckedLikeTheCTool() {
        SampleThread<Rping> small = SampleThread.start(Rping::new, List.of("-s", "-S", "10"));
        assertThat(small.exitCode(LIMIT)).isEqualTo(22);
        assertThat(small.err()).contains("Invalid size 10 (valid range is 23 to 65535)");
        SampleThread<Rping> neither = SampleThread.start(Rping::new, List.of("-C", "1"));
        assertThat(neither.exitCode(LIMIT)).isEqualTo(22);
        assertThat(neither.err()).contains("exactly one of -s");
        SampleThread<Rping> unknown = SampleThread.start(Rping::new, List.of("-s", "-x"));
        assertThat(unknown.exitCode(LIMIT)).isEqualTo(2);
    }

    private static String letters(char from, int n) {
        StringBuilder b = new StringBuilder();
        int c = from;
        for (int i = 0; i < n; i++) {
            b.append((char) c);
            c = c == 'z' ? 'A' : c + 1;
        }
        return b.toString();
    }
}
