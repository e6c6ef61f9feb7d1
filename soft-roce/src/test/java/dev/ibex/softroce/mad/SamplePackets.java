package dev.ibex.softroce.mad;

import static dev.ibex.softroce.mad.SampleMessages.ACTIVE_IP;
import static dev.ibex.softroce.mad.SampleMessages.PASSIVE_IP;

import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Bth;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One datagram of every kind this stack emits, with the fields tshark must decode from it (test fixture
 * shared by the tshark test and the fuzz test). Field values are in tshark's {@code -T fields} notation.
 */
public final class SamplePackets {
    public static final int PORT = 4791;
    public static final int MCAST_GROUP = 0xEF01_0203; // 239.1.2.3
    public static final int RC_QPN = 0x000456;
    public static final int RKEY = 0x1234_5678;
    public static final long VA = 0x0000_7F00_DEAD_0000L;

    /** A UDP payload, its addressing and the tshark fields expected for it. */
    public record Sample(String name, byte[] payload, int srcIp, int dstIp, int srcPort, int dstPort,
            Map<String, String> expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    private final List<Sample> samples = new ArrayList<>();
    private final PacketBuilder builder = new PacketBuilder();
    private final MemorySegment buf = MemorySegment.ofArray(new byte[8192]);
    private int psn = 0x000100;

    private SamplePackets() {
    }

    /** All samples, in an order that lets tshark track the CM conversation (REQ before REP). */
    public static List<Sample> all() {
        SamplePackets p = new SamplePackets();
        p.cm();
        p.rc();
        p.ud();
        return List.copyOf(p.samples);
    }

    // ---- CM on QP1 ----------------------------------------------------------------------------------

    private void cm() {
        mad("CM REQ", 0x0000_0001_1122_3344L, SampleMessages.req(), false, pairs(
                "infiniband.mad.attributeid", "0x0010",
                "infiniband.cm.req", "0x11223344", // 4.0.17 names the Local Comm ID like the subtree
                "infiniband.cm.req.serviceid.dport", "0x1d2f",
                "infiniband.cm.req.localcaguid", "0x0002c90300a1b2c3",
                "infiniband.cm.req.localqpn", "0x000123",
                "infiniband.cm.req.startpsn", "0x00abcd",
                "infiniband.cm.req.remoteresptout", "0x14",
                "infiniband.cm.req.pppmtu", "0x05",
                "infiniband.cm.req.retrcount", "0x07",
                "infiniband.cm.req.rnrretrcount", "0x07",
                "infiniband.cm.req.maxcmretr", "0x0f",
                "infiniband.cm.req.prim_localgid_ipv4", "127.0.0.2",
                "infiniband.cm.req.prim_remotegid_ipv4", "127.0.0.3",
                "infiniband.cm.req.prim_hoplim", "0x40",
                "infiniband.cm.req.prim_localacktout", "0x11",
                "infiniband.cm.req.ip_cm.sip4", "127.0.0.2",
                "infiniband.cm.req.ip_cm.dip4", "127.0.0.3",
                "infiniband.cm.req.ip_cm.sport", "0xbb27",
                "infiniband.cm.req.ip_cm.private", hexPadded("PRIVDATA", 56)));
        mad("CM MRA", 0x0000_0001_1122_3344L, SampleMessages.mra(), true, Map.of(
                "infiniband.mad.attributeid", "0x0011"));
        mad("CM REP", 0x0000_0001_1122_3344L, SampleMessages.rep(), true, pairs(
                "infiniband.mad.attributeid", "0x0013",
                "infiniband.cm.rep", "0x55667788",
                "infiniband.cm.rep.remotecommid", "0x11223344",
                "infiniband.cm.rep.localqpn", "0x000456",
                "infiniband.cm.rep.startpsn", "0x00beef",
                "infiniband.cm.rep.tgtackdelay", "0x0f",
                "infiniband.cm.rep.rnrretrcount", "0x07",
                "infiniband.cm.rep.localcaguid", "0x0002c90300d4e5f6",
                "infiniband.cm.rep.private", hexPadded("ACCEPTED", 196)));
        mad("CM RTU", 0x0000_0001_1122_3344L, SampleMessages.rtu(), false, Map.of(
                "infiniband.mad.attributeid", "0x0014",
                "infiniband.cm.rtu.localcommid", "0x11223344",
                "infiniband.cm.rtu.remotecommid", "0x55667788",
                "infiniband.cm.rtu.private", "00".repeat(224)));
        mad("CM REJ", 0x0000_0001_1122_3344L, SampleMessages.rej(), true, Map.of(
                "infiniband.mad.attributeid", "0x0012",
                "infiniband.cm.rej.localcommid", "0x55667788",
                "infiniband.cm.rej.remotecommid", "0x11223344",
                "infiniband.cm.rej.msgrej", "0x00",
                "infiniband.cm.rej.reason", "0x001c",
                "infiniband.cm.rej.private", hexPadded("REJECTED", 148)));
        mad("CM REJ no listener", 0x0000_0001_1122_3345L, SampleMessages.rejNoListener(), true, Map.of(
                "infiniband.cm.rej.reason", "0x0008"));
        mad("CM DREQ", 0x0000_0001_0000_0099L, SampleMessages.dreq(), false, Map.of(
                "infiniband.mad.attributeid", "0x0015",
                "infiniband.cm.dreq.localcommid", "0x11223344",
                "infiniband.cm.dreq.remotecommid", "0x55667788",
                "infiniband.cm.req.remoteqpneecn", "0x000456"));
        mad("CM DREP", 0x0000_0001_0000_0099L, SampleMessages.drep(), true, Map.of(
                "infiniband.mad.attributeid", "0x0016",
                "infiniband.cm.drsp.localcommid", "0x55667788",
                "infiniband.cm.drsp.remotecommid", "0x11223344"));
        mad("CM SIDR_REQ", 0x0000_0001_0000_0777L, SampleMessages.sidrReq(), false, Map.of(
                "infiniband.mad.attributeid", "0x0017"));
        mad("CM SIDR_REP", 0x0000_0001_0000_0777L, SampleMessages.sidrRep(), true, Map.of(
                "infiniband.mad.attributeid", "0x0018"));
        mad("CM LAP", 0x0000_0001_0000_0800L, SampleMessages.lap(), false, Map.of(
                "infiniband.mad.attributeid", "0x0019"));
        mad("CM APR", 0x0000_0001_0000_0800L, SampleMessages.apr(), true, Map.of(
                "infiniband.mad.attributeid", "0x001a"));
    }

    private void mad(String name, long tid, CmMessage message, boolean fromPassive, Map<String, String> fields) {
        int src = fromPassive ? PASSIVE_IP : ACTIVE_IP, dst = fromPassive ? ACTIVE_IP : PASSIVE_IP;
        int len = Qp1.encode(builder, buf, 0, psn++, CmMad.send(tid, message), src, dst, PORT, PORT);
        Map<String, String> expect = new LinkedHashMap<>();
        expect.put("infiniband.bth.opcode", "100");
        expect.put("infiniband.bth.destqp", "0x000001");
        expect.put("infiniband.deth.q_key", "0x0000000080010000");
        expect.put("infiniband.deth.srcqp", "0x00000001");
        expect.put("infiniband.mad.mgmtclass", "0x07");
        expect.put("infiniband.mad.classversion", "0x02");
        expect.put("infiniband.mad.method", "0x03");
        expect.put("infiniband.mad.transactionid", String.format("0x%016x", tid));
        expect.putAll(fields);
        add(name, len, src, dst, expect);
    }

    // ---- RC -----------------------------------------------------------------------------------------

    private void rc() {
        int first = psn;
        send("RC SEND_FIRST", Opcode.RC_SEND_FIRST, 256, b -> { });
        send("RC SEND_MIDDLE", Opcode.RC_SEND_MIDDLE, 256, b -> { });
        send("RC SEND_LAST", Opcode.RC_SEND_LAST, 5, b -> { });
        send("RC SEND_LAST_WITH_IMMEDIATE", Opcode.RC_SEND_LAST_WITH_IMMEDIATE, 6, b -> b.immediate(0x0A0B0C0D),
                "infiniband.immdt", "0a0b0c0d");
        send("RC SEND_ONLY", Opcode.RC_SEND_ONLY, 7, b -> { });
        send("RC SEND_ONLY_WITH_IMMEDIATE", Opcode.RC_SEND_ONLY_WITH_IMMEDIATE, 8, b -> b.immediate(0x01020304),
                "infiniband.immdt", "01020304");
        send("RC SEND_LAST_WITH_INVALIDATE", Opcode.RC_SEND_LAST_WITH_INVALIDATE, 9, b -> b.ieth(0x0BADCAFE),
                "infiniband.ieth", "0badcafe");
        send("RC SEND_ONLY_WITH_INVALIDATE", Opcode.RC_SEND_ONLY_WITH_INVALIDATE, 10, b -> b.ieth(0x0BADCAFF),
                "infiniband.ieth", "0badcaff");
        send("RC RDMA_WRITE_FIRST", Opcode.RC_RDMA_WRITE_FIRST, 256, b -> b.reth(VA, RKEY, 600), reth(VA, 600));
        send("RC RDMA_WRITE_MIDDLE", Opcode.RC_RDMA_WRITE_MIDDLE, 256, b -> { });
        send("RC RDMA_WRITE_LAST", Opcode.RC_RDMA_WRITE_LAST, 88, b -> { });
        send("RC RDMA_WRITE_LAST_WITH_IMMEDIATE", Opcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 3,
                b -> b.immediate(0x11223344), "infiniband.immdt", "11223344");
        send("RC RDMA_WRITE_ONLY", Opcode.RC_RDMA_WRITE_ONLY, 33, b -> b.reth(VA + 64, RKEY, 33), reth(VA + 64, 33));
        send("RC RDMA_WRITE_ONLY_WITH_IMMEDIATE", Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 12,
                b -> b.reth(VA + 128, RKEY, 12).immediate(0x55667788),
                merge(reth(VA + 128, 12), "infiniband.immdt", "55667788"));
        send("RC RDMA_READ_REQUEST", Opcode.RC_RDMA_READ_REQUEST, 0, b -> b.reth(VA, RKEY, 1000), reth(VA, 1000));
        response("RC RDMA_READ_RESPONSE_FIRST", Opcode.RC_RDMA_READ_RESPONSE_FIRST, 256, Aeth.ack(31), 7);
        response("RC RDMA_READ_RESPONSE_MIDDLE", Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, 256, -1, 0);
        response("RC RDMA_READ_RESPONSE_LAST", Opcode.RC_RDMA_READ_RESPONSE_LAST, 488, Aeth.ack(31), 7);
        response("RC RDMA_READ_RESPONSE_ONLY", Opcode.RC_RDMA_READ_RESPONSE_ONLY, 17, Aeth.ack(31), 8);
        response("RC ACKNOWLEDGE", Opcode.RC_ACKNOWLEDGE, 0, Aeth.ack(31), 9);
        response("RC NAK PSN sequence error", Opcode.RC_ACKNOWLEDGE, 0, Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), 9);
        response("RC NAK invalid request", Opcode.RC_ACKNOWLEDGE, 0, Aeth.nak(Aeth.NakCode.INVALID_REQUEST), 9);
        response("RC NAK remote access error", Opcode.RC_ACKNOWLEDGE, 0,
                Aeth.nak(Aeth.NakCode.REMOTE_ACCESS_ERROR), 9);
        response("RC NAK remote operational error", Opcode.RC_ACKNOWLEDGE, 0,
                Aeth.nak(Aeth.NakCode.REMOTE_OPERATIONAL_ERROR), 9);
        response("RC RNR NAK", Opcode.RC_ACKNOWLEDGE, 0, Aeth.rnrNak(14), 9);
        send("RC COMPARE_SWAP", Opcode.RC_COMPARE_SWAP, 0, b -> b.atomicEth(VA + 8, RKEY, 0x2222, 0x1111),
                "infiniband.atomiceth.swapdt", "8738", "infiniband.atomiceth.cmpdt", "4369",
                "infiniband.reth.va", "0x00007f00dead0008", "infiniband.reth.r_key", "0x12345678");
        send("RC FETCH_ADD", Opcode.RC_FETCH_ADD, 0, b -> b.atomicEth(VA + 16, RKEY, 5, 0),
                "infiniband.atomiceth.swapdt", "5",
                "infiniband.reth.va", "0x00007f00dead0010"); // AtomicETH VA/R_Key reuse the RETH fields
        int p = psn++;
        int len = builder.begin(buf, 0, Opcode.RC_ATOMIC_ACKNOWLEDGE).destQp(SampleMessages.ACTIVE_QPN).psn(p)
                .aeth(Aeth.ack(31), 10).atomicAckEth(0x1111).finishIpv4(PASSIVE_IP, ACTIVE_IP, PORT, PORT);
        add("RC ATOMIC_ACKNOWLEDGE", len, PASSIVE_IP, ACTIVE_IP, base(Opcode.RC_ATOMIC_ACKNOWLEDGE,
                SampleMessages.ACTIVE_QPN, p, 0, Map.of("infiniband.aeth.syndrome", "31", "infiniband.aeth.msn", "10",
                        "infiniband.atomicacketh.origremdt", "4369")));
        assert psn > first;
    }

    private void send(String name, Opcode op, int payload, Consumer<PacketBuilder> ext, String... fields) {
        send(name, op, payload, ext, pairs(fields));
    }

    private void send(String name, Opcode op, int payload, Consumer<PacketBuilder> ext, Map<String, String> fields) {
        int p = psn++;
        builder.begin(buf, 0, op).destQp(RC_QPN).psn(p).ackReq(op.position().isLast());
        ext.accept(builder);
        fill(builder.payloadOffset(), payload);
        int len = builder.payloadLength(payload).finishIpv4(ACTIVE_IP, PASSIVE_IP, PORT, PORT);
        Map<String, String> expect = base(op, RC_QPN, p, payload, fields);
        expect.put("infiniband.bth.a", op.position().isLast() ? "1" : "0");
        add(name, len, ACTIVE_IP, PASSIVE_IP, expect);
    }

    private void response(String name, Opcode op, int payload, int syndrome, int msn) {
        int p = psn++;
        builder.begin(buf, 0, op).destQp(SampleMessages.ACTIVE_QPN).psn(p);
        Map<String, String> fields = new LinkedHashMap<>();
        if (syndrome >= 0) {
            builder.aeth(syndrome, msn);
            fields.put("infiniband.aeth.syndrome", Integer.toString(syndrome));
            fields.put("infiniband.aeth.msn", Integer.toString(msn));
            fields.put("infiniband.aeth.syndrome.opcode", Integer.toString(Aeth.type(syndrome).ordinal()));
            switch (Aeth.type(syndrome)) {
                case ACK -> fields.put("infiniband.aeth.syndrome.credit_count", Integer.toString(Aeth.credits(syndrome)));
                case RNR_NAK -> fields.put("infiniband.aeth.syndrome.timer", Integer.toString(Aeth.rnrTimerCode(syndrome)));
                case NAK -> fields.put("infiniband.aeth.syndrome.error_code", Integer.toString(Aeth.value(syndrome)));
                default -> { }
            }
        }
        fill(builder.payloadOffset(), payload);
        int len = builder.payloadLength(payload).finishIpv4(PASSIVE_IP, ACTIVE_IP, PORT, PORT);
        add(name, len, PASSIVE_IP, ACTIVE_IP, base(op, SampleMessages.ACTIVE_QPN, p, payload, fields));
    }

    // ---- UD -----------------------------------------------------------------------------------------

    private void ud() {
        int p = psn++;
        builder.begin(buf, 0, Opcode.UD_SEND_ONLY).destQp(0x000789).psn(p).deth(0x0123_4567, 0x000321);
        fill(builder.payloadOffset(), 61);
        int len = builder.payloadLength(61).finishIpv4(ACTIVE_IP, PASSIVE_IP, PORT, PORT);
        add("UD SEND_ONLY", len, ACTIVE_IP, PASSIVE_IP, base(Opcode.UD_SEND_ONLY, 0x000789, p, 61, Map.of(
                "infiniband.deth.q_key", "0x0000000001234567", "infiniband.deth.srcqp", "0x00000321")));
        p = psn++;
        builder.begin(buf, 0, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE).destQp(Bth.MULTICAST_QPN).psn(p)
                .deth(0x0123_4567, 0x000321).immediate(0x00000007);
        fill(builder.payloadOffset(), 8);
        len = builder.payloadLength(8).finishIpv4(ACTIVE_IP, MCAST_GROUP, PORT, PORT);
        add("UD SEND_ONLY_WITH_IMMEDIATE multicast", len, ACTIVE_IP, MCAST_GROUP,
                base(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Bth.MULTICAST_QPN, p, 8, Map.of(
                        "infiniband.deth.q_key", "0x0000000001234567", "infiniband.deth.srcqp", "0x00000321",
                        "infiniband.immdt", "00000007")));
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private Map<String, String> base(Opcode op, int qpn, int p, int payload, Map<String, String> more) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("infiniband.bth.opcode", Integer.toString(op.code()));
        m.put("infiniband.bth.destqp", String.format("0x%06x", qpn));
        m.put("infiniband.bth.psn", Integer.toString(p));
        m.put("infiniband.bth.padcnt", Integer.toString(-payload & 3));
        m.put("infiniband.bth.p_key", "65535");
        m.putAll(more);
        return m;
    }

    private static Map<String, String> reth(long va, int len) {
        return pairs("infiniband.reth.va", String.format("0x%016x", va), "infiniband.reth.r_key",
                String.format("0x%08x", RKEY), "infiniband.reth.dmalen", Integer.toString(len));
    }

    private static Map<String, String> merge(Map<String, String> m, String k, String v) {
        Map<String, String> out = new LinkedHashMap<>(m);
        out.put(k, v);
        return out;
    }

    private static Map<String, String> pairs(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private void fill(long at, int n) {
        for (int i = 0; i < n; i++) {
            buf.set(ValueLayout.JAVA_BYTE, at + i, (byte) ('a' + i % 26));
        }
    }

    private void add(String name, int len, int src, int dst, Map<String, String> expect) {
        byte[] b = Arrays.copyOf(buf.toArray(ValueLayout.JAVA_BYTE), len);
        samples.add(new Sample(name, b, src, dst, PORT, PORT, expect));
    }

    private static String hexPadded(String ascii, int length) {
        StringBuilder sb = new StringBuilder();
        for (char c : ascii.toCharArray()) {
            sb.append(String.format("%02x", (int) c));
        }
        return sb.append("00".repeat(length - ascii.length())).toString();
    }
}
