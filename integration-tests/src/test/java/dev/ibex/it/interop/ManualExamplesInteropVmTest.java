package dev.ibex.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import dev.ibex.samples.manual.Mc;
import dev.ibex.samples.manual.RcExample;
import dev.ibex.samples.manual.Srq;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ports of the manual's example programs (samples {@code dev.ibex.samples.manual}) against the C originals
 * rebuilt from the manual's listing ({@code lab/manual-c/*.c}, compiled here with gcc), on rxe0: each pair runs both
 * ways, and each role prints the same lines in C and in Java once the numbers that differ from run to run (keys,
 * addresses, QP numbers, TCP ports) are masked.
 */
@VmTest
class ManualExamplesInteropVmTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static Path bin;

    private final SoftRoceVm vm = SoftRoceVm.current();
    private final String addr = vm.address();

    /** Compiles the three fixtures with the listings' build commands (gcc is the host's, mounted in the guest). */
    @BeforeAll
    static void compileTheListings() throws IOException, URISyntaxException {
        Path root = Path.of(ManualExamplesInteropVmTest.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI()).getParent().getParent().getParent(); // integration-tests/target/test-classes → repo
        Path src = root.resolve("lab/manual-c");
        bin = Files.createTempDirectory("manual-c");
        gcc("-Wall", "-O2", "-o", bin.resolve("RDMA_RC_example").toString(),
                src.resolve("RDMA_RC_example.c").toString(), "-libverbs");
        gcc("-o", bin.resolve("srq").toString(), src.resolve("srq.c").toString(), "-libverbs", "-lrdmacm");
        gcc("-o", bin.resolve("mc").toString(), src.resolve("mc.c").toString(), "-libverbs", "-lrdmacm");
    }

    private static void gcc(String... args) {
        List<String> cmd = new ArrayList<>(List.of("gcc"));
        cmd.addAll(List.of(args));
        try (ToolProcess gcc = ToolProcess.start(cmd.toArray(String[]::new))) {
            assertThat(gcc.exitCode(LIMIT)).as(gcc.output()).isZero();
        }
    }

    private static String c(String program) {
        return bin.resolve(program).toString();
    }

    @Test
    void rcExampleBothWays() {
        String gid = Integer.toString(ipv4GidIndex());
        // C server, Java client
        String cServer;
        String javaClient;
        try (ToolProcess server = ToolProcess.start(c("RDMA_RC_example"), "-d", vm.device(), "-g", gid, "-p",
                "19875")) {
            awaitTcpListener(19875, server);
            JavaSample<RcExample> client = JavaSample.start(RcExample::new, "-d", vm.device(), "-g", gid, "-p",
                    "19875", addr);
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            cServer = server.output();
            javaClient = client.out();
        }
        // Java server, C client
        String javaServer;
        String cClient;
        JavaSample<RcExample> server = JavaSample.start(RcExample::new, "-d", vm.device(), "-g", gid, "-p", "19876");
        Awaitility.await().atMost(LIMIT).until(() -> server.out().contains("for TCP connection"));
        try (ToolProcess client = ToolProcess.start(c("RDMA_RC_example"), "-d", vm.device(), "-g", gid, "-p",
                "19876", addr)) {
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            cClient = client.output();
            javaServer = server.out();
        }
        String remoteGid = "Remote GID = 00:00:00:00:00:00:00:00:00:00:ff:ff:"
                + String.join(":", SoftRoceVm.ipv4Gid(addr).substring(30).replace(":", "").split("(?<=\\G..)"));
        for (String s : List.of(cServer, javaServer)) {
            assertThat(s.lines()).containsSubsequence(" Device name : \"" + vm.device() + "\"", " GID index : " + gid,
                    "going to send the message: 'SEND operation '", "Local LID = 0x0", remoteGid,
                    "QP state was change to RTS", "Send Request was posted",
                    "completion was found in CQ with status 0x0",
                    "Contents of server buffer: 'RDMA write operation'", "test result is 0");
        }
        for (String s : List.of(cClient, javaClient)) {
            assertThat(s.lines()).containsSubsequence(" IP : " + addr, "Receive Request was posted",
                    "QP state was change to RTS", "Message is: 'SEND operation '", "RDMA Read Request was posted",
                    "Contents of server's buffer: 'RDMA read operation '",
                    "Now replacing it with: 'RDMA write operation'", "RDMA Write Request was posted",
                    "test result is 0");
        }
        assertThat(masked(javaServer)).isEqualTo(masked(cServer));
        assertThat(masked(javaClient)).isEqualTo(masked(cClient));
    }

    @Test
    void srqExampleBothWays() {
        String[] opts = {"-a", addr, "-c", "20", "-l", "4000", "-q", "3", "-w", "8"};
        // C server, Java client
        String cServer;
        String javaClient;
        try (ToolProcess server = ToolProcess.start(args(opts, c("srq"), "-s", "-p", "51216"))) {
            server.awaitLine("waiting for connection from client", LIMIT);
            JavaSample<Srq> client = JavaSample.start(Srq::new, args(opts, "-p", "51216"));
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            cServer = server.output();
            javaClient = client.out();
        }
        // Java server, C client
        String javaServer;
        String cClient;
        JavaSample<Srq> server = JavaSample.start(Srq::new, args(opts, "-s", "-p", "51217"));
        Awaitility.await().atMost(LIMIT).until(() -> server.out().contains("waiting for connection from client"));
        try (ToolProcess client = ToolProcess.start(args(opts, c("srq"), "-p", "51217"))) {
            assertThat(client.exitCode(LIMIT)).as(client.output()).isZero();
            assertThat(server.exitCode(LIMIT)).as(server.output()).isZero();
            cClient = client.output();
            javaServer = server.out();
        }
        for (String s : List.of(cServer, javaServer)) {
            assertThat(s.lines().filter(l -> l.startsWith("recv count: ")).map(l -> l.replaceAll("qp_num: \\d+", ""))
                    .distinct()).hasSize(20);
            assertThat(s.lines().filter(l -> l.startsWith("recv count: ")).map(l -> l.replaceAll(".*qp_num: ", ""))
                    .distinct()).as("three connections into one SRQ:\n" + s).hasSize(3);
            assertThat(s.lines().filter(l -> l.startsWith("send count: ")))
                    .containsExactly("send count: 1", "send count: 2", "send count: 3");
        }
        for (String s : List.of(cClient, javaClient)) {
            assertThat(s.lines().filter(l -> l.startsWith("send count: "))).hasSize(20);
            assertThat(s.lines().filter(l -> l.startsWith("recv count: ")))
                    .containsExactly("recv count: 1", "recv count: 2", "recv count: 3");
        }
        assertThat(masked(javaServer)).isEqualTo(masked(cServer));
        assertThat(masked(javaClient)).isEqualTo(masked(cClient));
    }

    /** mc: three messages, so that the listing's CQ of 2 (3 entries on rxe) can never overflow. */
    @Test
    void mcExampleBothWays() {
        String group = "239.1.9.1";
        // C receiver, Java sender
        String cReceiver;
        String javaSender;
        try (ToolProcess receiver = ToolProcess.start(c("mc"), "-m", group, "-b", addr, "-c", "3")) {
            receiver.awaitLine("waiting for messages", LIMIT);
            JavaSample<Mc> sender = JavaSample.start(Mc::new, "-s", "-m", group, "-b", addr, "-c", "3");
            assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            cReceiver = receiver.output();
            javaSender = sender.out();
        }
        // Java receiver, C sender
        String javaReceiver;
        String cSender;
        JavaSample<Mc> receiver = JavaSample.start(Mc::new, "-m", group, "-b", addr, "-c", "3");
        Awaitility.await().atMost(LIMIT).until(() -> receiver.out().contains("waiting for messages"));
        try (ToolProcess sender = ToolProcess.start(c("mc"), "-s", "-m", group, "-b", addr, "-c", "3")) {
            assertThat(sender.exitCode(LIMIT)).as(sender.output()).isZero();
            assertThat(receiver.exitCode(LIMIT)).as(receiver.output()).isZero();
            cSender = sender.output();
            javaReceiver = receiver.out();
        }
        String joined = "joined dgid: ::ffff:" + group + ", mlid 0x0, sl 0";
        assertThat(cReceiver.lines()).containsExactly(joined, "waiting for messages...", "received message 1",
                "received message 2", "received message 3");
        assertThat(cSender.lines()).containsExactly(joined, "sent message 1", "sent message 2", "sent message 3");
        assertThat(javaReceiver).isEqualTo(cReceiver);
        assertThat(javaSender).isEqualTo(cSender);
    }

    /** The index of rxe0's IPv4-mapped GID (index 0 is the MAC-derived link-local one), from sysfs. */
    private int ipv4GidIndex() {
        String want = SoftRoceVm.ipv4Gid(addr);
        Path gids = Path.of("/sys/class/infiniband", vm.device(), "ports/1/gids");
        for (int i = 0; i < 16; i++) {
            try {
                if (Files.readString(gids.resolve(Integer.toString(i))).strip().equals(want)) {
                    return i;
                }
            } catch (IOException e) {
                // unpopulated entries cannot be read
            }
        }
        throw new AssertionError("no GID " + want + " on " + vm.device());
    }

    /** Waits until a TCP socket listens on {@code port} ({@code /proc/net/tcp}, state 0A): C prints before it binds. */
    private static void awaitTcpListener(int port, ToolProcess server) {
        String local = String.format(Locale.ROOT, ":%04X ", port);
        Awaitility.await(server + " listens on TCP " + port).atMost(LIMIT).pollInterval(Duration.ofMillis(100))
                .until(() -> Files.readAllLines(Path.of("/proc/net/tcp")).stream()
                        .anyMatch(l -> l.contains(local) && l.trim().split("\\s+")[3].equals("0A")));
    }

    /** Output with what differs from run to run masked: hex values, TCP ports, QP numbers. */
    private static String masked(String output) {
        return output.replaceAll("0x[0-9a-f]+", "0x?").replaceAll("port \\d+|port : \\d+", "port ?")
                .replaceAll("qp_num: \\d+", "qp_num: ?");
    }

    /** {@code head} followed by {@code tail}. */
    private static String[] args(String[] tail, String... head) {
        List<String> all = new ArrayList<>(List.of(head));
        all.addAll(List.of(tail));
        return all.toArray(String[]::new);
    }
}
