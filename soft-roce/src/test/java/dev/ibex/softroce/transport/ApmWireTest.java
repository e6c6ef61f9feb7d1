package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.io.IOException;
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
 * The BTH MigReq bit on the wire, decoded by tshark ({@code infiniband.bth.m}): 1 on every RC packet — requests
 * and ACKs — while the QPs are MIGRATED, 0 once they re-armed, and 1 again on the alternate path after a forced
 * migration.
 */
class ApmWireTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    record Packet(String src, String dst, int opcode, boolean migReq) {}

    @Test
    void migReqFollowsTheMigrationState() throws Exception {
        String tshark = RcPcapTest.findTshark();
        Assumptions.assumeTrue(tshark != null, "tshark is not installed (apt-get install tshark); skipped");
        Path pcap = dir.resolve("apm.pcap");
        int port;
        Harness.Params params = new Harness.Params();
        params.timeout = 16;
        try (ApmPair p = new ApmPair(true, params, Map.of(SoftRoceConfig.PCAP, pcap.toString()))) {
            port = p.h.fabric.config().udpPort();
            p.stream(5, WAIT);                                   // MIGRATED: m = 1
            p.rearmBoth(ApmPair.A2, ApmPair.B2);
            p.armByTraffic();
            p.stream(5, WAIT);                                   // ARMED: m = 0
            p.x.qp.modify(new QpAttr().pathMigState(MigState.MIGRATED));
            p.stream(20, WAIT);                                  // MIGRATED on a'↔b': m = 1
            assertThat(p.mig(p.y)).isEqualTo(MigState.MIGRATED);
        }
        List<Packet> rc = decode(tshark, pcap, port).stream().filter(k -> k.opcode() < 0x20).toList();
        assertThat(rc).isNotEmpty();
        List<Packet> primary = rc.stream().filter(k -> k.src().endsWith(".2") || k.src().endsWith(".3")).toList();
        List<Packet> alternate = rc.stream().filter(k -> k.src().endsWith(".12") || k.src().endsWith(".13")).toList();
        assertThat(primary.getFirst().migReq()).as("a new QP is MIGRATED").isTrue();
        assertThat(primary).as("re-armed requests (SEND ONLY 0x04) and ACKs (0x11) carry m = 0")
                .anyMatch(k -> !k.migReq() && k.opcode() == 0x04 && k.src().equals(ApmPair.A))
                .anyMatch(k -> !k.migReq() && k.opcode() == 0x11 && k.src().equals(ApmPair.B));
        assertThat(alternate).as("migrated traffic").isNotEmpty().allMatch(Packet::migReq)
                .anyMatch(k -> k.opcode() == 0x11 && k.src().equals(ApmPair.B2));
    }

    private List<Packet> decode(String tshark, Path pcap, int port) throws IOException, InterruptedException {
        List<String> cmd = List.of(tshark, "-r", pcap.toString(), "-n", "-o", "infiniband.rroce.port:" + port,
                "--disable-heuristic", "rpcrdma_infiniband", "-Y", "infiniband", "-T", "fields",
                "-E", "separator=/t", "-e", "ip.src", "-e", "ip.dst", "-e", "infiniband.bth.opcode",
                "-e", "infiniband.bth.m");
        Path err = dir.resolve("tshark.err");
        Process proc = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        byte[] out = proc.getInputStream().readAllBytes();
        assertThat(proc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(proc.exitValue()).as("tshark: %s", Files.readString(err)).isZero();
        List<Packet> packets = new ArrayList<>();
        // the tap records each datagram where it was sent and where it arrived: both copies carry the same bits
        for (String line : new String(out, StandardCharsets.UTF_8).lines().toList()) {
            String[] f = line.split("\t", -1);
            if (f.length < 4 || f[2].isEmpty()) {
                continue;
            }
            String m = f[3].trim();
            packets.add(new Packet(f[0], f[1], Integer.decode(f[2]), m.equals("1") || m.equalsIgnoreCase("true")));
        }
        return packets;
    }
}
