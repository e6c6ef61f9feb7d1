package dev.ibex.softroce.cm;

import static dev.ibex.softroce.cm.CmWorld.expect;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.SoftRoceConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live capture of the CM on the soft fabric, decoded by tshark (an independent dissector): a connection
 * (REQ/REP/RTU … DREQ/DREP), a request nobody listens for (REJ 8), a consumer reject with private data (REJ 28)
 * and a SIDR exchange. Checks the TIDs wire.md §2.1 prescribes, the IP-CM service ID and cma_hdr, reasons and
 * private data.
 */
class CmPcapTsharkTest {
    private static final String[] FIELDS = {"ip.src", "ip.dst", "infiniband.mad.attributeid",
        "infiniband.mad.transactionid", "infiniband.cm.req.serviceid.dport", "infiniband.cm.req.ip_cm.sip4",
        "infiniband.cm.req.ip_cm.dip4", "infiniband.cm.req.ip_cm.sport", "infiniband.cm.req.ip_cm.private",
        "infiniband.cm.rep.private", "infiniband.cm.rej.reason", "infiniband.cm.rej.private", "_ws.col.Info",
        "_ws.malformed"};

    @TempDir
    Path dir;

    record Mad(Map<String, String> f) {
        String attr() {
            return f.get("infiniband.mad.attributeid");
        }

        String tid() {
            return f.get("infiniband.mad.transactionid");
        }

        String get(String k) {
            return f.get(k);
        }

        /** A numeric field, which tshark prints in hex or decimal. */
        int num(String k) {
            return Integer.decode(f.get(k));
        }
    }

    @Test
    void tsharkSeesWhatTheRdmaCmSent() throws Exception {
        String tshark = findTshark();
        Assumptions.assumeTrue(tshark != null, "tshark is not installed (apt-get install tshark): decode check skipped");
        Path pcap = dir.resolve("cm.pcap");
        int udpPort;
        int clientPort;
        try (Harness h = new Harness(Map.of(SoftRoceConfig.PCAP, pcap.toString()))) {
            udpPort = h.fabric.config().udpPort();
            EventChannel ch = h.fabric.createEventChannel();
            CmId l = ch.createId(PortSpace.TCP, null);
            l.bind(new InetSocketAddress("127.0.0.2", 7471));
            l.listen(4);
            // 1. a connection, then a disconnect from the client
            CmId c = routed(ch, 7471, PortSpace.TCP);
            clientPort = c.localAddress().getPort();
            qp(c, h.b, QpType.RC);
            c.connect(ConnParam.DEFAULT.withPrivateData("hello".getBytes(StandardCharsets.US_ASCII)));
            CmId s = expect(ch, CmEventType.CONNECT_REQUEST).id();
            qp(s, h.a, QpType.RC);
            s.accept(ConnParam.DEFAULT.withPrivateData("world".getBytes(StandardCharsets.US_ASCII)));
            expect(ch, CmEventType.ESTABLISHED);
            expect(ch, CmEventType.ESTABLISHED);
            c.disconnect();
            expect(ch, CmEventType.DISCONNECTED).id().disconnect();
            drain(ch, CmEventType.DISCONNECTED, CmEventType.TIMEWAIT_EXIT, CmEventType.TIMEWAIT_EXIT);
            // 2. nobody listens on 7999: REJ 8
            CmId n = routed(ch, 7999, PortSpace.TCP);
            qp(n, h.b, QpType.RC);
            n.connect(ConnParam.DEFAULT);
            assertThat(expect(ch, CmEventType.REJECTED).status()).isEqualTo(8);
            // 3. the listener refuses: REJ 28 with private data
            CmId r = routed(ch, 7471, PortSpace.TCP);
            qp(r, h.b, QpType.RC);
            r.connect(ConnParam.DEFAULT);
            expect(ch, CmEventType.CONNECT_REQUEST).id().reject("nope".getBytes(StandardCharsets.US_ASCII));
            assertThat(expect(ch, CmEventType.REJECTED).status()).isEqualTo(28);
            // 4. SIDR
            CmId ul = ch.createId(PortSpace.UDP, null);
            ul.bind(new InetSocketAddress("127.0.0.2", 5000));
            ul.listen(1);
            CmId u = routed(ch, 5000, PortSpace.UDP);
            u.connect(ConnParam.DEFAULT);
            CmEvent ureq = expect(ch, CmEventType.CONNECT_REQUEST);
            ureq.id().accept(new ConnParam(new byte[0], 0, 0, false, 0, 0, false, 0x1234));
            CmEvent uest = CmWorld.next(ch);
            while (uest.type() == CmEventType.CONNECT_REQUEST) { // a retry that crossed the SIDR_REP
                uest.id().close();
                uest = CmWorld.next(ch);
            }
            assertThat(uest.type()).isEqualTo(CmEventType.ESTABLISHED);
            assertThat(uest.ud().qpNum()).isEqualTo(0x1234);
        }

        List<Mad> mads = decode(tshark, pcap, udpPort);
        assertThat(mads).allSatisfy(m -> assertThat(m.get("_ws.malformed")).isEmpty());
        List<Mad> reqs = of(mads, "0x0010");
        assertThat(reqs).hasSize(3);
        Mad req = reqs.get(0);
        assertThat(req.num("infiniband.cm.req.serviceid.dport")).isEqualTo(7471);
        assertThat(req.get("infiniband.cm.req.ip_cm.sip4")).isEqualTo("127.0.0.3");
        assertThat(req.get("infiniband.cm.req.ip_cm.dip4")).isEqualTo("127.0.0.2");
        assertThat(req.num("infiniband.cm.req.ip_cm.sport")).isEqualTo(clientPort);
        assertThat(req.get("infiniband.cm.req.ip_cm.private")).startsWith(hex("hello"));
        // an MRA shows up when the REQ was retried before the accept (the RDMA CM's delayed MRA): REQ's TID too
        assertThat(of(mads, "0x0011")).allSatisfy(mra -> assertThat(mra.tid()).isEqualTo(req.tid()));
        // REP and RTU reuse the REQ's TID
        assertThat(of(mads, "0x0013")).singleElement().satisfies(rep -> {
            assertThat(rep.tid()).isEqualTo(req.tid());
            assertThat(rep.get("infiniband.cm.rep.private")).startsWith(hex("world"));
            assertThat(rep.get("ip.src")).isEqualTo("127.0.0.2");
        });
        assertThat(of(mads, "0x0014")).singleElement().satisfies(rtu -> assertThat(rtu.tid()).isEqualTo(req.tid()));
        // DREP reuses the DREQ's TID, which the active side formed from its own comm ID (= the REQ's)
        Mad dreq = of(mads, "0x0015").getFirst();
        assertThat(of(mads, "0x0015")).hasSize(1);
        assertThat(of(mads, "0x0016")).singleElement().satisfies(d -> assertThat(d.tid()).isEqualTo(dreq.tid()));
        assertThat(dreq.tid()).isEqualTo(req.tid());
        // REJ 8 answers the second REQ with its TID; REJ 28 the third, with the consumer's private data
        List<Mad> rejs = of(mads, "0x0012");
        assertThat(rejs).hasSize(2);
        assertThat(reqs.get(1).num("infiniband.cm.req.serviceid.dport")).isEqualTo(7999);
        assertThat(rejs.get(0).num("infiniband.cm.rej.reason")).isEqualTo(8);
        assertThat(rejs.get(0).tid()).isEqualTo(reqs.get(1).tid());
        assertThat(rejs.get(1).num("infiniband.cm.rej.reason")).isEqualTo(28);
        assertThat(rejs.get(1).tid()).isEqualTo(reqs.get(2).tid());
        assertThat(rejs.get(1).get("infiniband.cm.rej.private")).startsWith(hex("nope"));
        // SIDR_REP reuses the SIDR_REQ's TID (tshark names these messages only)
        Mad sidrReq = of(mads, "0x0017").getFirst();
        assertThat(sidrReq.get("_ws.col.Info")).contains("ServiceIDResReq");
        assertThat(of(mads, "0x0018")).isNotEmpty().allSatisfy(rep -> assertThat(rep.tid())
                .isEqualTo(sidrReq.tid()));
        // every TID is the MAD agent number (high half) and the sender's comm ID (low half): never zero
        assertThat(mads).allSatisfy(m -> assertThat(Long.decode(m.tid())).isNotZero());
    }

    private static String hex(String s) {
        return HexFormat.of().formatHex(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static List<Mad> of(List<Mad> mads, String attr) {
        return mads.stream().filter(m -> attr.equals(m.attr())).toList();
    }

    private static void qp(CmId id, DeviceContext dev, QpType type) {
        CompletionQueue cq = dev.createCompletionQueue(16, null, 0);
        id.createQp(dev.allocPd(), new QpInitAttr(cq, cq, null, new QpCap(4, 4, 1, 1, 0), type, true, null));
    }

    private static CmId routed(EventChannel ch, int port, PortSpace ps) {
        CmId c = ch.createId(ps, null);
        c.resolveAddr(new InetSocketAddress("127.0.0.3", 0), new InetSocketAddress("127.0.0.2", port), 1000);
        expect(ch, CmEventType.ADDR_RESOLVED);
        c.resolveRoute(1000);
        expect(ch, CmEventType.ROUTE_RESOLVED);
        return c;
    }

    private static void drain(EventChannel ch, CmEventType... types) {
        List<CmEventType> want = new ArrayList<>(List.of(types));
        while (!want.isEmpty()) {
            CmEvent e = CmWorld.next(ch);
            assertThat(want.remove(e.type())).as("unexpected %s", e).isTrue();
        }
    }

    /** The CM MADs of the capture, each once (the fabric records a datagram when sent and when received). */
    private List<Mad> decode(String tshark, Path pcap, int udpPort) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(tshark, "-r", pcap.toString(), "-n", "-o",
                "infiniband.rroce.port:" + udpPort, "-Y", "infiniband.mad.mgmtclass == 7", "-T", "fields", "-E",
                "separator=/t", "-E", "occurrence=f"));
        for (String f : FIELDS) {
            cmd.addAll(List.of("-e", f));
        }
        Path err = dir.resolve("tshark.err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(err)).isZero();
        Map<String, Mad> unique = new LinkedHashMap<>();
        for (String line : new String(out, StandardCharsets.UTF_8).lines().toList()) {
            String[] cols = java.util.Arrays.copyOf(line.split("\t", -1), FIELDS.length);
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < FIELDS.length; i++) {
                m.put(FIELDS[i], cols[i] == null ? "" : cols[i]);
            }
            unique.putIfAbsent(line, new Mad(m));
        }
        return List.copyOf(unique.values());
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
}
