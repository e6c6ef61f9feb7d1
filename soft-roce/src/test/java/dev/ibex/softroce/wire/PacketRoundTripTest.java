package dev.ibex.softroce.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Builder → parser round trips for every opcode with every field set, and the parser's refusals. */
class PacketRoundTripTest {
    private static final int SRC = 0x0A00_0001, DST = 0x0A00_0002, SPORT = 0xC123, DPORT = 4791;

    private final PacketBuilder builder = new PacketBuilder();
    private final RocePacket packet = new RocePacket();
    private final MemorySegment buf = MemorySegment.ofBuffer(ByteBuffer.allocateDirect(8192));

    @ParameterizedTest
    @EnumSource(Opcode.class)
    void everyOpcodeRoundTripsWithEveryField(Opcode op) throws Exception {
        int payload = !op.carriesPayload() ? 0 : op.position().isLast() ? 1021 : 1024;
        long at = 6;
        builder.begin(buf, at, op).destQp(0xFEDCBA).psn(0xFFFFFF).ackReq(true).solicitedEvent(true).migReq(true)
                .pKey(0x7FFF).congestion(true, true);
        if (op.hasReth()) {
            builder.reth(0x1122_3344_5566_7788L, 0x99AA_BBCC, 0xDDEE_FF00);
        }
        if (op.hasAeth()) {
            builder.aeth(Aeth.nak(Aeth.NakCode.REMOTE_OPERATIONAL_ERROR), 0xABCDEF);
        }
        if (op.hasAtomicEth()) {
            builder.atomicEth(0x0000_7FFF_0000_1000L, 0x0102_0304, -1L, Long.MIN_VALUE);
        }
        if (op.hasAtomicAckEth()) {
            builder.atomicAckEth(0x0123_4567_89AB_CDEFL);
        }
        if (op.hasImmDt()) {
            builder.immediate(0xF00D_FACE);
        }
        if (op.hasIeth()) {
            builder.ieth(0x5555_AAAA);
        }
        if (op.hasDeth()) {
            builder.deth(0x0123_4567, 0xFFFFFF);
        }
        for (int i = 0; i < payload; i++) {
            buf.set(ValueLayout.JAVA_BYTE, builder.payloadOffset() + i, (byte) (i * 7));
        }
        int len = builder.payloadLength(payload).finishIpv4(SRC, DST, SPORT, DPORT);
        assertThat(len).isEqualTo(op.headerLength() + payload + Padding.count(payload) + Icrc.SIZE);
        assertThat(len % 4).isZero();

        packet.parseIpv4(buf, at, len, SRC, DST, SPORT, DPORT);
        assertThat(packet.opcode()).isEqualTo(op);
        assertThat(packet.destQp()).isEqualTo(0xFEDCBA);
        assertThat(packet.psn()).isEqualTo(0xFFFFFF);
        assertThat(packet.ackReq()).isTrue();
        assertThat(packet.solicitedEvent()).isTrue();
        assertThat(packet.migReq()).isTrue();
        assertThat(packet.pKey()).isEqualTo(0x7FFF);
        assertThat(packet.fecn()).isTrue();
        assertThat(packet.becn()).isTrue();
        assertThat(packet.transportVersion()).isZero();
        assertThat(packet.padCount()).isEqualTo(Padding.count(payload));
        assertThat(packet.payloadLength()).isEqualTo(payload);
        assertThat(packet.payloadOffset()).isEqualTo(at + op.headerLength());
        for (int i = 0; i < payload; i++) {
            assertThat(buf.get(ValueLayout.JAVA_BYTE, packet.payloadOffset() + i)).isEqualTo((byte) (i * 7));
        }
        if (op.hasReth()) {
            assertThat(packet.rethVirtualAddress()).isEqualTo(0x1122_3344_5566_7788L);
            assertThat(packet.rethRKey()).isEqualTo(0x99AA_BBCC);
            assertThat(packet.rethDmaLength()).isEqualTo(0xDDEE_FF00);
        } else {
            assertThatThrownBy(packet::rethRKey).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("carries no RETH");
        }
        if (op.hasAeth()) {
            assertThat(packet.aethSyndrome()).isEqualTo(0x63);
            assertThat(packet.aethMsn()).isEqualTo(0xABCDEF);
        } else {
            assertThatThrownBy(packet::aethMsn).isInstanceOf(IllegalStateException.class);
        }
        if (op.hasAtomicEth()) {
            assertThat(packet.atomicVirtualAddress()).isEqualTo(0x0000_7FFF_0000_1000L);
            assertThat(packet.atomicRKey()).isEqualTo(0x0102_0304);
            assertThat(packet.atomicSwapOrAdd()).isEqualTo(-1L);
            assertThat(packet.atomicCompare()).isEqualTo(Long.MIN_VALUE);
        }
        if (op.hasAtomicAckEth()) {
            assertThat(packet.atomicAckOriginalData()).isEqualTo(0x0123_4567_89AB_CDEFL);
        }
        if (op.hasImmDt()) {
            assertThat(packet.immediate()).isEqualTo(0xF00D_FACE);
        } else {
            assertThatThrownBy(packet::immediate).isInstanceOf(IllegalStateException.class);
        }
        if (op.hasIeth()) {
            assertThat(packet.iethRKey()).isEqualTo(0x5555_AAAA);
        }
        if (op.hasDeth()) {
            assertThat(packet.dethQKey()).isEqualTo(0x0123_4567);
            assertThat(packet.dethSrcQp()).isEqualTo(0xFFFFFF);
        } else {
            assertThatThrownBy(packet::dethQKey).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void beginZeroesStaleHeaderBytes() throws Exception {
        buf.fill((byte) 0xFF);
        int len = builder.begin(buf, 0, Opcode.RC_RDMA_WRITE_ONLY).finishIpv4(SRC, DST, SPORT, DPORT);
        packet.parseIpv4(buf, 0, len, SRC, DST, SPORT, DPORT);
        assertThat(packet.destQp()).isZero();
        assertThat(packet.ackReq()).isFalse();
        assertThat(packet.pKey()).isEqualTo(Bth.DEFAULT_PKEY);
        assertThat(packet.rethVirtualAddress()).isZero();
        assertThat(len).isEqualTo(32);
    }

    @Test
    void builderRefusesMisuse() {
        assertThatThrownBy(() -> builder.psn(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no packet begun");
        builder.begin(buf, 0, Opcode.RC_SEND_ONLY);
        assertThatThrownBy(() -> builder.reth(0, 0, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("RC_SEND_ONLY carries no RETH");
        assertThatThrownBy(() -> builder.psn(1 << 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.payloadLength(builder.maxPayload() + 1))
                .isInstanceOf(IllegalArgumentException.class);
        builder.begin(buf, 0, Opcode.RC_ACKNOWLEDGE);
        assertThatThrownBy(() -> builder.payloadLength(4)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("carries no payload");
        builder.begin(buf, 0, Opcode.RC_SEND_FIRST).payloadLength(1023);
        assertThatThrownBy(() -> builder.finishIpv4(SRC, DST, SPORT, DPORT)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("multiple of 4");
        MemorySegment tiny = MemorySegment.ofArray(new byte[19]); // an ACK needs 20
        assertThatThrownBy(() -> builder.begin(tiny, 0, Opcode.RC_ACKNOWLEDGE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parserRefusals() throws Exception {
        int len = builder.begin(buf, 0, Opcode.RC_SEND_ONLY).payloadLength(8).finishIpv4(SRC, DST, SPORT, DPORT);
        packet.wrap(buf, 0, len);

        assertReason(buf, 0, 15, Reason.TRUNCATED);
        assertReason(buf, buf.byteSize() - 16, 32, Reason.TRUNCATED);
        assertReason(buf, -1, 32, Reason.TRUNCATED);
        assertReason(buf, 0, len - 2, Reason.UNALIGNED_LENGTH);

        Bth.transportVersion(buf, 0, 1);
        assertReason(buf, 0, len, Reason.BAD_TRANSPORT_VERSION);
        Bth.transportVersion(buf, 0, 0);

        Bth.opcode(buf, 0, 0x15);
        assertReason(buf, 0, len, Reason.UNKNOWN_OPCODE);
        Bth.opcode(buf, 0, Opcode.RC_RDMA_WRITE_ONLY.code()); // 28-byte header + ICRC > 24 bytes
        assertReason(buf, 0, len, Reason.TRUNCATED);
        Bth.opcode(buf, 0, Opcode.RC_ACKNOWLEDGE.code());   // 16 + 4 < 24: payload on an ACK
        assertReason(buf, 0, len, Reason.UNEXPECTED_PAYLOAD);
        Bth.opcode(buf, 0, Opcode.RC_SEND_MIDDLE.code());
        Bth.padCount(buf, 0, 1);
        assertReason(buf, 0, len, Reason.BAD_PAD);
        Bth.opcode(buf, 0, Opcode.RC_SEND_ONLY.code());
        packet.wrap(buf, 0, len); // pad 1 on ONLY with 8 bytes: fine structurally

        int emptyLen = builder.begin(buf, 0, Opcode.RC_SEND_ONLY).finishIpv4(SRC, DST, SPORT, DPORT);
        Bth.padCount(buf, 0, 2);
        assertReason(buf, 0, emptyLen, Reason.BAD_PAD);
    }

    @Test
    void aFailedParseLeavesNoStalePacket() {
        assertReason(buf, 0, 8, Reason.TRUNCATED);
        assertThat(packet.opcode()).isNull();
        assertThatThrownBy(packet::payloadLength).isInstanceOf(IllegalStateException.class);
        assertThat(packet.toString()).isEqualTo("RocePacket[none]");
    }

    private void assertReason(MemorySegment s, long off, int len, Reason reason) {
        assertThatThrownBy(() -> packet.wrap(s, off, len)).isInstanceOf(MalformedPacketException.class)
                .satisfies(e -> assertThat(((MalformedPacketException) e).reason()).isEqualTo(reason));
    }
}
