package dev.ibex.softroce.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The three known-answer vectors of wire.md §1.6 (confirmed there with scapy), built and parsed byte for byte. */
class KnownAnswerTest {
    static final int SRC = 0x7F00_0002; // 127.0.0.2
    static final int DST = 0x7F00_0003; // 127.0.0.3
    static final int PORT = 4791;

    static final String ACK = "1100ffff00000011000abcde" + "1f000001" + "3c0dcce9";
    static final String SEND_HELLO = "0430ffff00000012800abcde" + "68656c6c6f" + "000000" + "135f0cec";
    static final String UD_MCAST = "6500ffff00ffffff00000009" + "0123456700000013" + "00000007" + "6d63617374212121"
            + "2a71b683";

    private final PacketBuilder builder = new PacketBuilder();
    private final RocePacket packet = new RocePacket();

    @Test
    void rcAcknowledge() throws Exception {
        MemorySegment buf = directBuffer();
        int len = builder.begin(buf, 0, Opcode.RC_ACKNOWLEDGE).destQp(0x11).psn(0x0ABCDE)
                .aeth(Aeth.ack(Aeth.CREDITS_UNLIMITED), 1).finishIpv4(SRC, DST, PORT, PORT);
        assertThat(hex(buf, len)).isEqualTo(ACK);

        packet.parseIpv4(segmentOf(ACK), 0, ACK.length() / 2, SRC, DST, PORT, PORT);
        assertThat(packet.opcode()).isEqualTo(Opcode.RC_ACKNOWLEDGE);
        assertThat(packet.destQp()).isEqualTo(0x11);
        assertThat(packet.psn()).isEqualTo(0x0ABCDE);
        assertThat(Aeth.type(packet.aethSyndrome())).isEqualTo(Aeth.Type.ACK);
        assertThat(Aeth.credits(packet.aethSyndrome())).isEqualTo(0x1F);
        assertThat(packet.aethMsn()).isEqualTo(1);
        assertThat(packet.payloadLength()).isZero();
        assertThat(packet.icrc()).isEqualTo(0xE9CC0D3C); // stored little-endian
    }

    @Test
    void rcSendOnlyWithPad() throws Exception {
        MemorySegment buf = directBuffer();
        int len = builder.begin(buf, 0, Opcode.RC_SEND_ONLY).destQp(0x12).psn(0x0ABCDE).ackReq(true)
                .payload("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                .finishIpv4(SRC, DST, PORT, PORT);
        assertThat(hex(buf, len)).isEqualTo(SEND_HELLO);

        MemorySegment in = segmentOf(SEND_HELLO);
        packet.parseIpv4(in, 0, (int) in.byteSize(), SRC, DST, PORT, PORT);
        assertThat(packet.opcode()).isEqualTo(Opcode.RC_SEND_ONLY);
        assertThat(packet.ackReq()).isTrue();
        assertThat(packet.padCount()).isEqualTo(3);
        assertThat(packet.payloadLength()).isEqualTo(5);
        assertThat(packet.payloadOffset()).isEqualTo(12);
    }

    @Test
    void udSendOnlyWithImmediateToMulticast() throws Exception {
        MemorySegment buf = directBuffer();
        int len = builder.begin(buf, 0, Opcode.UD_SEND_ONLY_WITH_IMMEDIATE).destQp(Bth.MULTICAST_QPN).psn(9)
                .deth(0x0123_4567, 0x13).immediate(7)
                .payload("mcast!!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                .finishIpv4(SRC, DST, PORT, PORT);
        assertThat(hex(buf, len)).isEqualTo(UD_MCAST);

        MemorySegment in = segmentOf(UD_MCAST);
        packet.parseIpv4(in, 0, (int) in.byteSize(), SRC, DST, PORT, PORT);
        assertThat(packet.destQp()).isEqualTo(0xFF_FFFF);
        assertThat(packet.dethQKey()).isEqualTo(0x0123_4567);
        assertThat(packet.dethSrcQp()).isEqualTo(0x13);
        assertThat(packet.immediate()).isEqualTo(7);
        assertThat(packet.payloadLength()).isEqualTo(8);
    }

    @Test
    void heapSegmentsGiveTheSameIcrc() {
        Icrc icrc = new Icrc();
        MemorySegment heap = segmentOf(UD_MCAST);
        MemorySegment longs = MemorySegment.ofArray(new long[(int) heap.byteSize() / 8 + 1]);
        MemorySegment.copy(heap, 0, longs, 0, heap.byteSize());
        int len = (int) heap.byteSize();
        assertThat(icrc.checkIpv4(SRC, DST, PORT, PORT, heap, 0, len)).isTrue();
        assertThat(icrc.checkIpv4(SRC, DST, PORT, PORT, longs, 0, len)).isTrue();
    }

    @Test
    void anyChangeToACoveredFieldBreaksTheIcrc() throws Exception {
        MemorySegment in = segmentOf(ACK);
        int len = (int) in.byteSize();
        assertThatThrownBy(() -> packet.parseIpv4(in, 0, len, SRC + 1, DST, PORT, PORT))
                .isInstanceOf(MalformedPacketException.class)
                .satisfies(e -> assertThat(((MalformedPacketException) e).reason())
                        .isEqualTo(MalformedPacketException.Reason.BAD_ICRC));
        assertThatThrownBy(() -> packet.parseIpv4(in, 0, len, SRC, DST, PORT + 1, PORT))
                .isInstanceOf(MalformedPacketException.class);
        in.set(ValueLayout.JAVA_BYTE, 13, (byte) 0x7F); // AETH MSN
        assertThatThrownBy(() -> packet.parseIpv4(in, 0, len, SRC, DST, PORT, PORT))
                .isInstanceOf(MalformedPacketException.class);
    }

    @Test
    void maskedFieldsDoNotAffectTheIcrc() throws Exception {
        MemorySegment in = segmentOf(ACK);
        Bth.fecn(in, 0, true);
        Bth.becn(in, 0, true);
        packet.parseIpv4(in, 0, (int) in.byteSize(), SRC, DST, PORT, PORT);
        assertThat(packet.fecn()).isTrue();
        assertThat(packet.becn()).isTrue();
    }

    static MemorySegment directBuffer() {
        return MemorySegment.ofBuffer(ByteBuffer.allocateDirect(4200));
    }

    static MemorySegment segmentOf(String hex) {
        return MemorySegment.ofArray(HexFormat.of().parseHex(hex));
    }

    static String hex(MemorySegment s, int length) {
        return HexFormat.of().formatHex(s.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
    }
}
