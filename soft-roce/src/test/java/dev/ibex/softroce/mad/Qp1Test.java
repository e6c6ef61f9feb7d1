package dev.ibex.softroce.mad;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import dev.ibex.softroce.wire.NetworkOrder;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The QP1 framing of a CM MAD (wire.md §2.1) and the MAD-level refusals. */
class Qp1Test {
    private static final int A = SampleMessages.ACTIVE_IP, P = SampleMessages.PASSIVE_IP;

    private final PacketBuilder builder = new PacketBuilder();
    private final RocePacket packet = new RocePacket();
    private final MemorySegment buf = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(1024));

    @Test
    void aCmMadIsA280ByteUdSendToQp1() throws Exception {
        CmMad mad = CmMad.send(0x0000_0001_1122_3344L, SampleMessages.req());
        int len = Qp1.encode(builder, buf, 0, 0x000042, mad, A, P, 4791, 4791);
        assertThat(len).isEqualTo(280).isEqualTo(Qp1.PACKET_SIZE);
        assertThat(hex(0, 20)).isEqualTo("6400ffff00000001" + "00000042" + "80010000" + "00000001");
        assertThat(hex(20, 24)).isEqualTo("01070203" + "00000000" + "0000000111223344" + "0010" + "0000" + "00000000");
        assertThat(hex(44, 4)).isEqualTo("11223344"); // REQ local comm ID at MAD offset 24

        packet.parseIpv4(buf, 0, len, A, P, 4791, 4791);
        assertThat(Qp1.isQp1(packet)).isTrue();
        assertThat(packet.dethSrcQp()).isEqualTo(Qp1.QPN);
        CmMad back = Qp1.decode(packet);
        assertThat(back.header()).isEqualTo(mad.header());
        assertThat(back.message()).isEqualTo(SampleMessages.req(SampleMessages.req().privateData().padTo(92)));
        assertThat(back.transactionId()).isEqualTo(0x0000_0001_1122_3344L);
    }

    @Test
    void everyMessageSurvivesTheFraming() throws Exception {
        for (CmMessage m : new CmMessage[] {SampleMessages.req(), SampleMessages.mra(), SampleMessages.rep(),
            SampleMessages.rtu(), SampleMessages.rej(), SampleMessages.dreq(), SampleMessages.drep(),
            SampleMessages.sidrReq(), SampleMessages.sidrRep(), SampleMessages.lap(), SampleMessages.apr()}) {
            int len = Qp1.encode(builder, buf, 0, 1, CmMad.send(7, m), A, P, 4791, 4791);
            CmMessage back = Qp1.decode(packet.parseIpv4(buf, 0, len, A, P, 4791, 4791)).message();
            assertThat(back.attribute()).isEqualTo(m.attribute());
            assertThat(back.privateData().length()).isGreaterThanOrEqualTo(m.privateData().length());
            byte[] again = new byte[CmMessage.DATA_SIZE];
            back.encode(MemorySegment.ofArray(again), 0);
            assertThat(again).as("%s re-encodes identically", m.attribute())
                    .isEqualTo(buf.asSlice(44, CmMessage.DATA_SIZE).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void refusesWhatIsNotACmMadOnQp1() throws Exception {
        int len = builder.begin(buf, 0, Opcode.RC_SEND_ONLY).destQp(1).payloadLength(256).finishIpv4(A, P, 1, 1);
        assertReason(packet.parseIpv4(buf, 0, len, A, P, 1, 1), Reason.UNEXPECTED_PACKET);

        len = builder.begin(buf, 0, Opcode.UD_SEND_ONLY).destQp(1).deth(0x0123_4567, 1).payloadLength(256)
                .finishIpv4(A, P, 1, 1);
        assertReason(packet.parseIpv4(buf, 0, len, A, P, 1, 1), Reason.UNEXPECTED_PACKET); // wrong Q_Key

        len = builder.begin(buf, 0, Opcode.UD_SEND_ONLY).destQp(1).deth(Qp1.QKEY, 1).payloadLength(100)
                .finishIpv4(A, P, 1, 1);
        assertReason(packet.parseIpv4(buf, 0, len, A, P, 1, 1), Reason.TRUNCATED);

        assertMadReason(20, 0x04, Reason.UNSUPPORTED_MAD);   // management class: performance
        assertMadReason(22, 0x01, Reason.UNSUPPORTED_MAD);   // class version 1
        assertMadReason(36, 0x00, Reason.UNKNOWN_ATTRIBUTE, 37, 0x20);
        assertMadReason(23, 0x81, Reason.UNEXPECTED_PACKET); // GetResp
        assertMadReason(36, 0x00, Reason.UNEXPECTED_PACKET, 37, 0x01); // ClassPortInfo is not decoded
    }

    @Test
    void decodersRefuseReservedCodes() {
        MemorySegment m = MemorySegment.ofArray(new byte[CmMessage.DATA_SIZE]);
        SampleMessages.rej().encode(m, 0);
        NetworkOrder.u16(m, 10, 34);
        assertThatThrownBy(() -> CmRej.decode(m, 0)).isInstanceOf(MalformedPacketException.class)
                .hasMessageContaining("REJ reason 34");
        NetworkOrder.u16(m, 10, 8);
        NetworkOrder.u8(m, 9, 73 << 1);
        assertThatThrownBy(() -> CmRej.decode(m, 0)).hasMessageContaining("reject info length 73");
        NetworkOrder.u8(m, 9, 0);
        NetworkOrder.u8(m, 8, 0xC0);
        assertThatThrownBy(() -> CmRej.decode(m, 0)).hasMessageContaining("message rejected 3");
        SampleMessages.sidrRep().encode(m, 0);
        NetworkOrder.u8(m, 4, 6);
        assertThatThrownBy(() -> CmSidrRep.decode(m, 0)).hasMessageContaining("SIDR_REP status 6");
        SampleMessages.apr().encode(m, 0);
        NetworkOrder.u8(m, 9, 14);
        assertThatThrownBy(() -> CmApr.decode(m, 0)).hasMessageContaining("APR status 14");
        SampleMessages.mra().encode(m, 0);
        NetworkOrder.u8(m, 8, 0xC0);
        assertThatThrownBy(() -> CmMra.decode(m, 0)).hasMessageContaining("MRAed 3");
        assertThatThrownBy(() -> CmReq.decode(m, 1)).isInstanceOf(MalformedPacketException.class)
                .satisfies(e -> assertThat(((MalformedPacketException) e).reason()).isEqualTo(Reason.TRUNCATED));
    }

    @Test
    void madHeaderMustMatchItsMessage() {
        MadHeader rep = MadHeader.cmSend(1, CmAttribute.REP);
        assertThatThrownBy(() -> new CmMad(rep, SampleMessages.req())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not match the REQ message");
        assertThat(new MadHeader(1, 7, 2, 0x81, 0, 0, 0, 1, 0).isResponse()).isTrue();
        assertThat(rep.isResponse()).isFalse();
    }

    private void assertMadReason(int at, int value, Reason reason) throws Exception {
        assertMadReason(at, value, reason, at, value);
    }

    private void assertMadReason(int at, int value, Reason reason, int at2, int value2) throws Exception {
        Qp1.encode(builder, buf, 0, 1, CmMad.send(7, SampleMessages.rtu()), A, P, 1, 1);
        NetworkOrder.u8(buf, at, value);
        NetworkOrder.u8(buf, at2, value2);
        new dev.ibex.softroce.wire.Icrc().writeIpv4(A, P, 1, 1, buf, 0, 280);
        assertReason(packet.parseIpv4(buf, 0, 280, A, P, 1, 1), reason);
    }

    private static void assertReason(RocePacket p, Reason reason) {
        assertThatThrownBy(() -> Qp1.decode(p)).isInstanceOf(MalformedPacketException.class)
                .satisfies(e -> assertThat(((MalformedPacketException) e).reason()).isEqualTo(reason));
    }

    private String hex(int off, int len) {
        return HexFormat.of().formatHex(buf.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
    }
}
