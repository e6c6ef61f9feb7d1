package dev.ibex.samples.manual;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.samples.SampleThread;
import dev.ibex.samples.SoftRoceHosts;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The SRQ example's port against itself over soft-roce: three connections served through one SRQ on each side, the
 * listing's count lines, every connection used, the server answering once per {@code -w} messages.
 */
class SrqTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void severalConnectionsShareOneSrq() {
        SoftRoceHosts hosts = SoftRoceHosts.pick();
        String port = Integer.toString(20_000 + hosts.port() % 20_000);
        List<String> opts = List.of("-a", SoftRoceHosts.SERVER, "-p", port, "-c", "20", "-l", "4000", "-q", "3",
                "-w", "8");
        SampleThread<Srq> server = SampleThread.start(Srq::new, hosts.server(with(opts, "-s")));
        Awaitility.await().atMost(LIMIT).until(() -> server.out().contains("waiting for connection from client")
                || server.isDone());
        SampleThread<Srq> client = SampleThread.start(Srq::new, hosts.client(opts.toArray(String[]::new)));
        assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
        assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();

        List<String> received = server.out().lines().filter(l -> l.startsWith("recv count: ")).toList();
        assertThat(received).hasSize(20).first().asString().startsWith("recv count: 1, qp_num: ");
        assertThat(received.getLast()).startsWith("recv count: 20, qp_num: ");
        Set<String> serverQps = received.stream().map(l -> l.substring(l.indexOf("qp_num: "))).collect(
                Collectors.toSet());
        assertThat(serverQps).as("the three connections all delivered into the one SRQ").hasSize(3);
        assertThat(server.out().lines().filter(l -> l.startsWith("send count: ")))
                .containsExactly("send count: 1", "send count: 2", "send count: 3"); // after 8, 16 and 20
        assertThat(server.out()).startsWith("waiting for connection from client...\n");

        List<String> sent = client.out().lines().filter(l -> l.startsWith("send count: ")).toList();
        assertThat(sent).hasSize(20);
        assertThat(sent.stream().map(l -> l.substring(l.indexOf("qp_num: "))).distinct()).hasSize(3);
        assertThat(client.out().lines().filter(l -> l.startsWith("recv count: ")))
                .containsExactly("recv count: 1", "recv count: 2", "recv count: 3");
        assertThat(client.out().lines()).containsSubsequence("send count: 8, qp_num: " + qpOf(sent.get(7)),
                "recv count: 1", "send count: 9, qp_num: " + qpOf(sent.get(8)), "send count: 16, qp_num: "
                        + qpOf(sent.get(15)), "recv count: 2", "send count: 20, qp_num: " + qpOf(sent.get(19)),
                "recv count: 3");
        assertThat(server.err() + client.err()).isEmpty();
    }

    @Test
    void withoutAnAddressItSaysWhatIsMissing() {
        SampleThread<Srq> srq = SampleThread.start(Srq::new, List.of("-s"));
        assertThat(srq.exitCode(LIMIT)).isEqualTo(1);
        assertThat(srq.out()).isEqualTo("server address required (use -a)!\n");
    }

    private static String qpOf(String line) {
        return line.substring(line.indexOf("qp_num: ") + "qp_num: ".length());
    }

    private static String[] with(List<String> opts, String extra) {
        List<String> all = new java.util.ArrayList<>(opts);
        all.add(extra);
        return all.toArray(String[]::new);
    }
}
