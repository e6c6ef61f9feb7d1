package dev.ibex.softroce.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.mad.SamplePackets;
import dev.ibex.softroce.mad.SamplePackets.Sample;
import dev.ibex.softroce.wire.Opcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tshark (Wireshark's InfiniBand dissector, independent of this code) decodes one datagram of every kind
 * this stack emits, written through {@link PcapWriter}, with the expected field values. Quirks of 4.0.17
 * (wire.md §4.5: REQ flow label/packet rate, the "LID: 65535" source column) are not asserted.
 */
class TsharkDecodeTest {
    /** The Info column tshark prints for the CM messages it only names (MRA, SIDR, LAP, APR) and the rest. */
    private static final Map<String, String> INFO = Map.ofEntries(
            Map.entry("CM REQ", "CM: ConnectRequest"), Map.entry("CM MRA", "CM: MsgRcptAck"),
            Map.entry("CM REP", "CM: ConnectReply"), Map.entry("CM RTU", "CM: ReadyToUse"),
            Map.entry("CM REJ", "CM: ConnectReject"), Map.entry("CM DREQ", "CM: DisconnectRequest"),
            Map.entry("CM DREP", "CM: DisconnectReply"), Map.entry("CM SIDR_REQ", "CM: ServiceIDResReq"),
            Map.entry("CM SIDR_REP", "CM: ServiceIDResReqResp"), Map.entry("CM LAP", "CM: LoadAlternatePath"),
            Map.entry("CM APR", "CM: AlternatePathResponse"),
            Map.entry("RC NAK PSN sequence error", "[PSN Sequence Error]"),
            Map.entry("RC NAK invalid request", "[Invalid Request]"),
            Map.entry("RC NAK remote access error", "[Remote Access Error]"),
            Map.entry("RC NAK remote operational error", "[Remote Operational Error]"),
            Map.entry("UD SEND_ONLY_WITH_IMMEDIATE multicast", "UD Send Only Immediate QP=0xffffff"));

    private static final List<String> ALWAYS = List.of("frame.protocols", "_ws.malformed", "_ws.col.Info", "ip.src",
            "ip.dst", "udp.dstport", "ip.checksum.status", "infiniband.invariant.crc", "data.data");

    @TempDir
    Path dir;

    @Test
    void tsharkDecodesEveryPacketTypeWithTheExpectedFields() throws Exception {
        String tshark = findTshark();
        Assumptions.assumeTrue(tshark != null,
                "tshark is not installed (apt-get install tshark); the decode cross-check is skipped");
        List<Sample> samples = SamplePackets.all();
        Path pcap = dir.resolve("samples.pcap");
        try (PcapWriter w = PcapWriter.open(pcap)) {
            for (Sample s : samples) {
                w.writeIpv4(s.srcIp(), s.srcPort(), s.dstIp(), s.dstPort(), MemorySegment.ofArray(s.payload()), 0,
                        s.payload().length);
            }
        }

        Set<String> fieldSet = new LinkedHashSet<>(ALWAYS);
        samples.forEach(s -> fieldSet.addAll(s.expect().keySet()));
        List<String> fields = List.copyOf(fieldSet);
        List<String> cmd = new ArrayList<>(List.of(tshark, "-r", pcap.toString(), "-n",
                "--disable-heuristic", "rpcrdma_infiniband", "-o", "ip.check_checksum:TRUE",
                "-T", "fields", "-E", "separator=/t", "-E", "occurrence=f"));
        fields.forEach(f -> cmd.addAll(List.of("-e", f)));
        List<String> lines = run(cmd);
        assertThat(lines).as("one line per packet").hasSize(samples.size());

        SoftAssertions soft = new SoftAssertions();
        int asserted = 0;
        for (int i = 0; i < samples.size(); i++) {
            Sample s = samples.get(i);
            String[] cols = Arrays.copyOf(lines.get(i).split("\t", -1), fields.size());
            Map<String, String> got = new java.util.HashMap<>();
            for (int c = 0; c < fields.size(); c++) {
                got.put(fields.get(c), cols[c] == null ? "" : cols[c]);
            }
            for (var e : s.expect().entrySet()) {
                soft.assertThat(got.get(e.getKey())).as("%s: %s", s, e.getKey()).isEqualTo(e.getValue());
                asserted++;
            }
            soft.assertThat(got.get("frame.protocols")).as("%s protocols", s).startsWith("raw:ip:udp:infiniband");
            soft.assertThat(got.get("_ws.malformed")).as("%s malformed", s).isEmpty();
            soft.assertThat(got.get("ip.checksum.status")).as("%s IP checksum good", s).isEqualTo("1");
            soft.assertThat(got.get("udp.dstport")).isEqualTo("4791");
            soft.assertThat(got.get("ip.src")).isEqualTo(dev.ibex.softroce.wire.Ipv4.toString(s.srcIp()));
            soft.assertThat(got.get("ip.dst")).isEqualTo(dev.ibex.softroce.wire.Ipv4.toString(s.dstIp()));
            byte[] p = s.payload();
            String icrcBigEndian = String.format("0x%02x%02x%02x%02x", p[p.length - 4], p[p.length - 3],
                    p[p.length - 2], p[p.length - 1]);
            soft.assertThat(got.get("infiniband.invariant.crc")).as("%s ICRC position", s).isEqualTo(icrcBigEndian);
            Opcode op = Opcode.of(p[0] & 0xFF);
            int dataLength = p.length - op.headerLength() - 4; // tshark's data includes the pad
            if (op.carriesPayload() && dataLength > 0 && !s.name().startsWith("CM")) {
                String data = HexFormat.of().formatHex(p, op.headerLength(), p.length - 4);
                soft.assertThat(got.get("data.data")).as("%s payload+pad", s).isEqualTo(data);
            }
            String info = INFO.get(s.name());
            if (info != null) {
                soft.assertThat(got.get("_ws.col.Info")).as("%s info", s).contains(info);
            }
            asserted += 8;
        }
        soft.assertAll();
        assertThat(asserted).isGreaterThan(400);
    }

    static String findTshark() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, "tshark");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
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
