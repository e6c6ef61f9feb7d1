package dev.ibex.samples.manual;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.net.ServerSocket;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The RC example's port against itself over soft-roce (two fabrics on loopback, the QP details swapped over a real
 * TCP socket): the C program's output lines on both sides, and its RoCE failure without {@code -g}.
 */
class RcExampleTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void sendReadAndWriteWithTheListingsOutput() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        String port = Integer.toString(freeTcpPort());
        SampleThread<RcExample> server = SampleThread.start(RcExample::new, hosts.server("-p", port, "-g", "0"));
        awaitListening(server);
        SampleThread<RcExample> client = SampleThread.start(RcExample::new,
                hosts.client("-p", port, "-g", "0", SoftRoceHosts.SERVER));
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
        assertThat(server.out().lines()).containsSubsequence(" ------------------------------------------------",
                " Device name : \"(null)\"", " IB port : 1", " TCP port : " + port, " GID index : 0",
                "waiting on port " + port + " for TCP connection", "TCP connection was established",
                "searching for IB devices in host", "found 1 device(s)",
                "device not specified, using first one found: srv", "going to send the message: 'SEND operation '",
                "", "Local LID = 0x0", "Remote LID = 0x0",
                "Remote GID = 00:00:00:00:00:00:00:00:00:00:ff:ff:7f:00:00:02", "QP state was change to RTS",
                "Send Request was posted", "completion was found in CQ with status 0x0",
                "Contents of server buffer: 'RDMA write operation'", "", "test result is 0");
        assertThat(client.out().lines()).containsSubsequence(" IP : " + SoftRoceHosts.SERVER,
                "TCP connection was established", "Receive Request was posted", "QP state was change to RTS",
                "completion was found in CQ with status 0x0", "Message is: 'SEND operation '",
                "RDMA Read Request was posted", "completion was found in CQ with status 0x0",
                "Contents of server's buffer: 'RDMA read operation '",
                "Now replacing it with: 'RDMA write operation'", "RDMA Write Request was posted",
                "completion was found in CQ with status 0x0", "test result is 0");
        assertThat(client.out()).contains("Remote GID = 00:00:00:00:00:00:00:00:00:00:ff:ff:7f:00:00:03");
        assertThat(server.err() + client.err()).isEmpty();
    }

    @Test
    void onRoceTheMoveToRtrFailsWithoutAGidIndex() throws Exception {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        String port = Integer.toString(freeTcpPort());
        SampleThread<RcExample> server = SampleThread.start(RcExample::new, hosts.server("-p", port));
        awaitListening(server);
        SampleThread<RcExample> client = SampleThread.start(RcExample::new,
                hosts.client("-p", port, SoftRoceHosts.SERVER));
        assertThat(client.exitCode(LIMIT)).isEqualTo(1);
        assertThat(server.exitCode(LIMIT)).isEqualTo(1);
        for (SampleThread<RcExample> side : java.util.List.of(server, client)) {
            assertThat(side.err()).as(side.output()).contains("failed to modify QP state to RTR")
                    .contains("failed to connect QPs");
            assertThat(side.out()).doesNotContain("GID index").endsWith("test result is 1\n");
        }
    }

    /** As with the C program, the server must listen before the client connects. */
    static void awaitListening(SampleThread<?> server) {
        Awaitility.await().atMost(LIMIT).until(() -> server.out().contains("for TCP connection") || server.isDone());
    }

    static int freeTcpPort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
