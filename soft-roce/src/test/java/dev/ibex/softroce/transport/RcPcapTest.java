package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.SoftRoceConfig;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live RC exchange — SEND, a two-packet RDMA WRITE, a three-packet RDMA READ, a FETCH_ADD and a WRITE with a bad
 * rkey — captured by the fabric's pcap tap and decoded by tshark, an implementation nobody here wrote. Checks
 * opcodes, QPNs, PSN sequence, AckReq, RETH, AtomicETH, AETH syndromes (ACK and NAK remote access error) and MSNs.
 */
class RcPcapTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    record Row(String src, int opcode, int destQp, int psn, boolean ackReq, String syndrome, String msn, String rkey,
            String dmaLen, String add, String orig) {}

    @Test
    void tsharkDecodesALiveExchange() throws Exception {
        String tshark = findTshark();
        Assumptions.assumeTrue(tshark != null, "tshark is not installed (apt-get install tshark); skipped");
        Path pcap = dir.resolve("rc.pcap");
        int port;
        int xq;
        int yq;
        int rkey;
        Harness.Params params = new Harness.Params();
        try (Harness h = new Harness(Map.of(SoftRoceConfig.PCAP, pcap.toString()))) {
            port = h.fabric.config().udpPort();
            Side x = h.side(h.a, 1 << 16, new QpCap(16, 16, 1, 1, 0), true, null, null);
            Side y = h.side(h.b, 1 << 16, new QpCap(16, 16, 1, 1, 0), true, null, null);
            Harness.connect(x, y, params);
            xq = x.qp.qpNum();
            yq = y.qp.qpNum();
            rkey = y.mr.rkey();
            SendBatch sb = SendBatch.allocate(h.arena, 1, 1);
            RecvBatch rb = RecvBatch.allocate(h.arena, 1, 1);
            rb.wrId(0, 1).single(0, y.mr.address(), 256, y.mr.lkey());
            y.qp.postRecv(rb, 1);
            sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.SEND).single(0, x.mr.address(), 100, x.mr.lkey());
            post(x, sb);
            sb.clear(0).wrId(0, 2).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + 4096, rkey)
                    .single(0, x.mr.address(), 2000, x.mr.lkey());
            post(x, sb);
            sb.clear(0).wrId(0, 3).opcode(0, WrOpcode.RDMA_READ).rdma(0, y.mr.address(), rkey)
                    .single(0, x.mr.address() + 8192, 3000, x.mr.lkey());
            post(x, sb);
            y.buf.set(ValueLayout.JAVA_LONG, 16_384, 40L);
            sb.clear(0).wrId(0, 4).opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD)
                    .atomic(0, y.mr.address() + 16_384, 2, 0, rkey).single(0, x.mr.address() + 16_384, 8, x.mr.lkey());
            post(x, sb);
            sb.clear(0).wrId(0, 5).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address(), rkey ^ 0x100)
                    .single(0, x.mr.address(), 64, x.mr.lkey());
            x.qp.postSend(sb, 1);
            assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
            assertThat(x.wc.status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        }
        List<String> cmd = new ArrayList<>(List.of(tshark, "-r", pcap.toString(), "-n", "-o",
                "infiniband.rroce.port:" + port, "--disable-heuristic", "rpcrdma_infiniband", "-T", "fields",
                "-E", "separator=/t", "-E", "occurrence=f"));
        for (String f : List.of("infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
                "infiniband.bth.a", "infiniband.aeth.syndrome", "infiniband.aeth.msn", "infiniband.reth.r_key",
                "infiniband.reth.dmalen", "infiniband.atomiceth.swapdt", "infiniband.atomicacketh.origremdt",
                "ip.src")) {
            cmd.addAll(List.of("-e", f));
        }
        List<Row> rows = new ArrayList<>();
        for (String line : run(cmd)) {
            String[] c = line.split("\t", -1);
            if (!"127.0.0.2".equals(c[10]) && !"127.0.0.3".equals(c[10])) {
                continue;
            }
            rows.add(new Row(c[10], Integer.decode(c[0]), Integer.decode(c[1]), Integer.decode(c[2]), "1".equals(c[3]),
                    c[4], c[5], c[6], c[7], c[8], c[9]));
        }
        // requests from x carry y's QPN and consecutive PSNs from psnA: SEND, WRITE FIRST+LAST, READ (3 PSNs),
        // FETCH_ADD, bad WRITE
        List<Row> requests = rows.stream().filter(r -> r.src().equals("127.0.0.2")).distinct().toList();
        assertThat(requests).allSatisfy(r -> assertThat(r.destQp()).isEqualTo(yq));
        int a = params.psnA;
        assertThat(requests).extracting(Row::opcode, Row::psn).containsSubsequence(
                org.assertj.core.groups.Tuple.tuple(0x04, a),
                org.assertj.core.groups.Tuple.tuple(0x06, a + 1),
                org.assertj.core.groups.Tuple.tuple(0x08, a + 2),
                org.assertj.core.groups.Tuple.tuple(0x0C, a + 3),
                org.assertj.core.groups.Tuple.tuple(0x14, a + 6),
                org.assertj.core.groups.Tuple.tuple(0x0A, a + 7));
        Row writeFirst = requests.stream().filter(r -> r.opcode() == 0x06).findFirst().orElseThrow();
        assertThat(Long.decode(writeFirst.rkey())).isEqualTo(Integer.toUnsignedLong(rkey));
        assertThat(writeFirst.dmaLen()).isEqualTo("2000");
        assertThat(writeFirst.ackReq()).as("AckReq only on the last packet").isFalse();
        assertThat(requests.stream().filter(r -> r.opcode() == 0x08).findFirst().orElseThrow().ackReq()).isTrue();
        assertThat(requests.stream().filter(r -> r.opcode() == 0x0C).findFirst().orElseThrow().dmaLen())
                .isEqualTo("3000");
        assertThat(requests.stream().filter(r -> r.opcode() == 0x14).findFirst().orElseThrow().add())
                .isEqualTo("2");
        // responses to x carry x's QPN
        List<Row> responses = rows.stream().filter(r -> r.src().equals("127.0.0.3")).distinct().toList();
        assertThat(responses).allSatisfy(r -> assertThat(r.destQp()).isEqualTo(xq));
        assertThat(responses).extracting(Row::opcode, Row::psn, Row::syndrome).contains(
                org.assertj.core.groups.Tuple.tuple(0x11, a, "31"), // ACK of the SEND
                org.assertj.core.groups.Tuple.tuple(0x11, a + 2, "31"), // ACK of the WRITE's last packet
                org.assertj.core.groups.Tuple.tuple(0x0D, a + 3, "31"), // READ response FIRST
                org.assertj.core.groups.Tuple.tuple(0x0E, a + 4, ""), // MIDDLE, no AETH
                org.assertj.core.groups.Tuple.tuple(0x0F, a + 5, "31"), // LAST
                org.assertj.core.groups.Tuple.tuple(0x12, a + 6, "31"), // ATOMIC ACKNOWLEDGE
                org.assertj.core.groups.Tuple.tuple(0x11, a + 7, "98")); // NAK (0x62) remote access error
        assertThat(responses.stream().filter(r -> r.opcode() == 0x12).findFirst().orElseThrow().orig())
                .isEqualTo("40");
        assertThat(responses.stream().filter(r -> r.opcode() == 0x11 && r.psn() == a).findFirst().orElseThrow().msn())
                .isEqualTo("1");
        assertThat(responses.stream().filter(r -> r.opcode() == 0x12).findFirst().orElseThrow().msn())
                .as("SEND, WRITE, READ, atomic").isEqualTo("4");
    }

    static String findTshark() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, "tshark");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private static void post(Side x, SendBatch sb) {
        x.qp.postSend(sb, 1);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, WAIT)).isEqualTo(1);
        assertThat(x.wc.status(0)).isEqualTo(WcStatus.SUCCESS);
    }

    private List<String> run(List<String> cmd) throws IOException, InterruptedException {
        Path err = dir.resolve("tshark.err");
        Process proc = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        byte[] out = proc.getInputStream().readAllBytes();
        assertThat(proc.waitFor(60, TimeUnit.SECONDS)).as("tshark finished").isTrue();
        assertThat(proc.exitValue()).as("tshark exit status; stderr: %s", Files.readString(err)).isZero();
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }
}
