package dev.ibex.softroce.wire;

import static dev.ibex.softroce.wire.KnownAnswerTest.segmentOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every header field at non-default and boundary values, checked against the byte layout of wire.md §1.2/§1.4. */
class HeadersTest {
    private static final int AT = 3; // odd offset: all accessors are unaligned

    private final MemorySegment s = MemorySegment.ofArray(new byte[64]);

    @Test
    void bthAllFieldsSet() {
        Bth.opcode(s, AT, 0x0B);
        Bth.solicitedEvent(s, AT, true);
        Bth.migReq(s, AT, true);
        Bth.padCount(s, AT, 3);
        Bth.transportVersion(s, AT, 0xF);
        Bth.pKey(s, AT, 0x1234);
        Bth.fecn(s, AT, true);
        Bth.becn(s, AT, true);
        Bth.destQp(s, AT, 0xABCDEF);
        Bth.ackReq(s, AT, true);
        Bth.psn(s, AT, 0xFEDCBA);
        assertThat(hex(AT, Bth.SIZE)).isEqualTo("0bff1234c0abcdef80fedcba");
        assertThat(Bth.opcode(s, AT)).isEqualTo(0x0B);
        assertThat(Bth.solicitedEvent(s, AT)).isTrue();
        assertThat(Bth.migReq(s, AT)).isTrue();
        assertThat(Bth.padCount(s, AT)).isEqualTo(3);
        assertThat(Bth.transportVersion(s, AT)).isEqualTo(0xF);
        assertThat(Bth.pKey(s, AT)).isEqualTo(0x1234);
        assertThat(Bth.fecn(s, AT)).isTrue();
        assertThat(Bth.becn(s, AT)).isTrue();
        assertThat(Bth.destQp(s, AT)).isEqualTo(0xABCDEF);
        assertThat(Bth.ackReq(s, AT)).isTrue();
        assertThat(Bth.psn(s, AT)).isEqualTo(0xFEDCBA);
    }

    @Test
    void bthFlagSettersKeepTheirNeighbours() {
        s.asSlice(AT, Bth.SIZE).fill((byte) 0xFF);
        Bth.solicitedEvent(s, AT, false);
        assertThat(u8(AT + 1)).isEqualTo(0x7F);
        Bth.migReq(s, AT, false);
        assertThat(u8(AT + 1)).isEqualTo(0x3F);
        Bth.padCount(s, AT, 1);
        assertThat(u8(AT + 1)).isEqualTo(0x1F);
        Bth.transportVersion(s, AT, 0);
        assertThat(u8(AT + 1)).isEqualTo(0x10);
        Bth.fecn(s, AT, false);
        assertThat(u8(AT + 4)).isEqualTo(0x7F);
        Bth.becn(s, AT, false);
        assertThat(u8(AT + 4)).isEqualTo(0x3F);
        Bth.ackReq(s, AT, false);
        assertThat(u8(AT + 8)).isEqualTo(0x7F);
        Bth.psn(s, AT, 0);
        assertThat(u8(AT + 8)).isEqualTo(0x7F);
        assertThat(Bth.destQp(s, AT)).isEqualTo(0xFFFFFF);
    }

    @Test
    void bthRejectsValuesWiderThanTheirField() {
        assertThatThrownBy(() -> Bth.destQp(s, AT, 0x100_0000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DestQP");
        assertThatThrownBy(() -> Bth.psn(s, AT, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Bth.padCount(s, AT, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Bth.pKey(s, AT, 0x10000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Bth.opcode(s, AT, 256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void reth() {
        Reth.write(s, AT, 0x8877_6655_4433_2211L, 0xCAFE_BABE, 0xFFFF_FFF0);
        assertThat(hex(AT, Reth.SIZE)).isEqualTo("8877665544332211cafebabefffffff0");
        assertThat(Reth.virtualAddress(s, AT)).isEqualTo(0x8877_6655_4433_2211L);
        assertThat(Reth.rKey(s, AT)).isEqualTo(0xCAFE_BABE);
        assertThat(Integer.toUnsignedLong(Reth.dmaLength(s, AT))).isEqualTo(0xFFFF_FFF0L);
    }

    @Test
    void atomicEth() {
        AtomicEth.write(s, AT, 0x1000_0000_0000_0008L, 0x0102_0304, -2L, 0x7FFF_FFFF_FFFF_FFFFL);
        assertThat(hex(AT, AtomicEth.SIZE))
                .isEqualTo("1000000000000008" + "01020304" + "fffffffffffffffe" + "7fffffffffffffff");
        assertThat(AtomicEth.virtualAddress(s, AT)).isEqualTo(0x1000_0000_0000_0008L);
        assertThat(AtomicEth.rKey(s, AT)).isEqualTo(0x0102_0304);
        assertThat(AtomicEth.swapOrAdd(s, AT)).isEqualTo(-2L);
        assertThat(AtomicEth.compare(s, AT)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void atomicAckEthImmDtIethDeth() {
        AtomicAckEth.originalData(s, AT, 0xDEAD_BEEF_0000_0001L);
        assertThat(hex(AT, 8)).isEqualTo("deadbeef00000001");
        assertThat(AtomicAckEth.originalData(s, AT)).isEqualTo(0xDEAD_BEEF_0000_0001L);
        ImmDt.immediate(s, AT, 0x8000_0001);
        assertThat(hex(AT, 4)).isEqualTo("80000001");
        assertThat(ImmDt.immediate(s, AT)).isEqualTo(0x8000_0001);
        Ieth.rKey(s, AT, 0x0A0B_0C0D);
        assertThat(hex(AT, 4)).isEqualTo("0a0b0c0d");
        assertThat(Ieth.rKey(s, AT)).isEqualTo(0x0A0B_0C0D);
        s.asSlice(AT, Deth.SIZE).fill((byte) 0xFF);
        Deth.qKey(s, AT, Deth.GSI_QKEY);
        Deth.srcQp(s, AT, 0xFFFFFE);
        assertThat(hex(AT, Deth.SIZE)).isEqualTo("8001000000fffffe"); // reserved byte cleared
        assertThat(Deth.qKey(s, AT)).isEqualTo(0x8001_0000);
        assertThat(Deth.srcQp(s, AT)).isEqualTo(0xFFFFFE);
    }

    @Test
    void aethLayout() {
        Aeth.syndrome(s, AT, Aeth.nak(Aeth.NakCode.REMOTE_ACCESS_ERROR));
        Aeth.msn(s, AT, 0xFFFFFF);
        assertThat(hex(AT, Aeth.SIZE)).isEqualTo("62ffffff");
        assertThat(Aeth.msn(s, AT)).isEqualTo(0xFFFFFF);
        assertThat(Aeth.syndrome(s, AT)).isEqualTo(0x62);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 17, 30, 31})
    void aethAckSyndrome(int credits) {
        int syn = Aeth.ack(credits);
        assertThat(Aeth.type(syn)).isEqualTo(Aeth.Type.ACK);
        assertThat(Aeth.credits(syn)).isEqualTo(credits);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 14, 31})
    void aethRnrNakSyndrome(int timer) {
        int syn = Aeth.rnrNak(timer);
        assertThat(syn & 0xE0).isEqualTo(0x20);
        assertThat(Aeth.type(syn)).isEqualTo(Aeth.Type.RNR_NAK);
        assertThat(Aeth.rnrTimerCode(syn)).isEqualTo(timer);
    }

    @Test
    void aethNakSyndromes() {
        for (Aeth.NakCode code : Aeth.NakCode.values()) {
            int syn = Aeth.nak(code);
            assertThat(syn).isEqualTo(0x60 + code.code());
            assertThat(Aeth.type(syn)).isEqualTo(Aeth.Type.NAK);
            assertThat(Aeth.nakCode(syn)).isEqualTo(code);
        }
        assertThat(Aeth.nakCode(0x65)).isNull();
        assertThat(Aeth.type(0x40)).isEqualTo(Aeth.Type.RESERVED);
        assertThat(Aeth.describe(0x1F)).isEqualTo("ACK credits=31");
        assertThat(Aeth.describe(0x2E)).isEqualTo("RNR NAK timer=14");
        assertThat(Aeth.describe(0x60)).isEqualTo("NAK PSN_SEQUENCE_ERROR");
        assertThat(Aeth.describe(0x7F)).isEqualTo("NAK reserved code 31");
        assertThatThrownBy(() -> Aeth.ack(32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Aeth.rnrNak(32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rnrTimerTable() {
        assertThat(RnrTimer.nanos(0)).isEqualTo(655_360_000L);
        assertThat(RnrTimer.nanos(1)).isEqualTo(10_000L);
        assertThat(RnrTimer.nanos(14)).isEqualTo(1_280_000L);
        assertThat(RnrTimer.nanos(25)).isEqualTo(61_440_000L);
        assertThat(RnrTimer.nanos(31)).isEqualTo(491_520_000L);
        for (int code = 2; code < 32; code++) {
            assertThat(RnrTimer.nanos(code)).isGreaterThan(RnrTimer.nanos(code - 1));
        }
        assertThat(RnrTimer.codeFor(1)).isEqualTo(1);
        assertThat(RnrTimer.codeFor(1_280_000)).isEqualTo(14);
        assertThat(RnrTimer.codeFor(1_280_001)).isEqualTo(15);
        assertThat(RnrTimer.codeFor(500_000_000)).isZero();
        assertThatThrownBy(() -> RnrTimer.nanos(32)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void networkOrder24BitFields() {
        NetworkOrder.u24(s, 1, 0x123456);
        assertThat(hex(1, 3)).isEqualTo("123456");
        assertThat(NetworkOrder.u24(s, 1)).isEqualTo(0x123456);
        assertThat(segmentOf("ffffff").get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) -1);
    }

    private int u8(long off) {
        return s.get(ValueLayout.JAVA_BYTE, off) & 0xFF;
    }

    private String hex(long off, int len) {
        return HexFormat.of().formatHex(s.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
    }
}
