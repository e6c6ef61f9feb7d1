package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@code ibv_tmh} / {@code ibv_rvh} encoding, decoding and what random bytes do to the decoder. */
class TagMatchingWireTest {

    @Test
    void tmhIsBigEndianAsInTmTypesH() {
        MemorySegment s = MemorySegment.ofArray(new byte[16]);
        TagMatchingHeader.write(s, 0, TagMatchingHeader.EAGER, 0x01020304, 0x1122334455667788L);
        byte[] b = s.toArray(ValueLayout.JAVA_BYTE);
        assertThat(b).containsExactly(3, 0, 0, 0, 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88);
        TagMatchingHeader h = new TagMatchingHeader().wrap(s, 0, 16);
        assertThat(h.opcode()).isEqualTo(TagMatchingHeader.EAGER);
        assertThat(h.appCtx()).isEqualTo(0x01020304);
        assertThat(h.tag()).isEqualTo(0x1122334455667788L);
    }

    @Test
    void rvhIsBigEndianAsInTmTypesH() {
        MemorySegment s = MemorySegment.ofArray(new byte[40]);
        RendezvousHeader.write(s, 20, 0xA1A2A3A4A5A6A7A8L, 0xB1B2B3B4, 0xC1C2C3C4L);
        byte[] b = s.asSlice(20, 16).toArray(ValueLayout.JAVA_BYTE);
        assertThat(b).containsExactly((byte) 0xA1, (byte) 0xA2, (byte) 0xA3, (byte) 0xA4, (byte) 0xA5, (byte) 0xA6,
                (byte) 0xA7, (byte) 0xA8, (byte) 0xB1, (byte) 0xB2, (byte) 0xB3, (byte) 0xB4, (byte) 0xC1, (byte) 0xC2,
                (byte) 0xC3, (byte) 0xC4);
        RendezvousHeader r = new RendezvousHeader().wrap(s, 20, 20);
        assertThat(r.va()).isEqualTo(0xA1A2A3A4A5A6A7A8L);
        assertThat(r.rkey()).isEqualTo(0xB1B2B3B4);
        assertThat(r.length()).isEqualTo(0xC1C2C3C4L);
    }

    @Test
    void badHeadersAreTypedErrors() {
        MemorySegment s = MemorySegment.ofArray(new byte[32]);
        TagMatchingHeader h = new TagMatchingHeader();
        assertThatThrownBy(() -> h.wrap(s, 0, 15)).isInstanceOf(TmHeaderException.class).hasMessageContaining("16");
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 4);
        assertThatThrownBy(() -> h.wrap(s, 0, 16)).isInstanceOf(TmHeaderException.class)
                .hasMessageContaining("unknown tag-matching operation 4");
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 3);
        s.set(ValueLayout.JAVA_BYTE, 2, (byte) 1);
        assertThatThrownBy(() -> h.wrap(s, 0, 16)).isInstanceOf(TmHeaderException.class).hasMessageContaining("reserved");
        assertThat(h.tryWrap(s, 0, 16)).isFalse();
        assertThatThrownBy(() -> h.wrap(s, 20, 16)).isInstanceOf(TmHeaderException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> TagMatchingHeader.write(s, 0, 9, 0, 0)).isInstanceOf(TmHeaderException.class);
        assertThatThrownBy(() -> TagMatchingHeader.write(s, 17, 3, 0, 0)).isInstanceOf(TmHeaderException.class);
        assertThatThrownBy(() -> RendezvousHeader.write(s, 0, 0, 0, 1L << 32)).isInstanceOf(TmHeaderException.class);
        assertThatThrownBy(() -> new RendezvousHeader().wrap(s, 20, 12)).isInstanceOf(TmHeaderException.class);
    }

    /** Random bytes, offsets and lengths: a valid decode that re-encodes to the same bytes, or a TmHeaderException. */
    @Test
    void randomBytesDecodeOrFailTyped() {
        SplittableRandom rnd = new SplittableRandom(20);
        TagMatchingHeader h = new TagMatchingHeader();
        RendezvousHeader r = new RendezvousHeader();
        int valid = 0;
        int refused = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(16);
            for (int n = 0; n < 50_000; n++) {
                byte[] bytes = new byte[rnd.nextInt(0, 40)];
                rnd.nextBytes(bytes);
                if (rnd.nextInt(4) == 0 && bytes.length > 3) { // make plausible headers common
                    bytes[0] = (byte) rnd.nextInt(0, 5);
                    bytes[1] = bytes[2] = bytes[3] = 0;
                }
                MemorySegment s = MemorySegment.ofArray(bytes);
                long off = rnd.nextInt(-2, 10);
                long len = rnd.nextInt(-2, 42);
                try {
                    h.wrap(s, off, len);
                    valid++;
                    assertThat(h.opcode()).isBetween(0, 3);
                    TagMatchingHeader.write(copy, 0, h.opcode(), h.appCtx(), h.tag());
                    assertThat(copy.toArray(ValueLayout.JAVA_BYTE))
                            .isEqualTo(s.asSlice(off, 16).toArray(ValueLayout.JAVA_BYTE));
                    assertThat(h.tryWrap(s, off, len)).isTrue();
                } catch (TmHeaderException e) {
                    refused++;
                    assertThat(h.tryWrap(s, off, len)).isFalse();
                }
                try {
                    r.wrap(s, off, len);
                    RendezvousHeader.write(copy, 0, r.va(), r.rkey(), r.length());
                    assertThat(copy.toArray(ValueLayout.JAVA_BYTE))
                            .isEqualTo(s.asSlice(off, 16).toArray(ValueLayout.JAVA_BYTE));
                } catch (TmHeaderException e) {
                    // typed refusal is the only allowed failure
                }
            }
        }
        assertThat(valid).isPositive();
        assertThat(refused).isPositive();
    }

    @Test
    void opsBatchWritesIbvOpsWrLayout() {
        try (Arena arena = Arena.ofConfined()) {
            SrqOpsBatch b = SrqOpsBatch.allocate(arena, 3, 2);
            b.tagAdd(1, 7, SrqOpsBatch.SIGNALED, 99, 0xF0L, 0xFFL).sge(1, 1, 0x2000, 32, 6).numSge(1, 2)
                    .unexpectedCnt(1, 5);
            var s = b.segment();
            long op = 72;
            assertThat(s.get(ValueLayout.JAVA_LONG, op)).isEqualTo(7);
            assertThat(s.get(ValueLayout.JAVA_INT, op + 16)).isEqualTo(SrqOpsBatch.TAG_ADD);
            assertThat(s.get(ValueLayout.JAVA_INT, op + 20)).isEqualTo(SrqOpsBatch.SIGNALED | SrqOpsBatch.TM_SYNC);
            assertThat(s.get(ValueLayout.JAVA_INT, op + 24)).isEqualTo(5);
            assertThat(s.get(ValueLayout.JAVA_LONG, op + 32)).isEqualTo(99);
            long sgList = s.get(ValueLayout.JAVA_LONG, op + 40) - s.address();
            assertThat(sgList).isEqualTo(3 * 72 + 2 * 16);
            assertThat(s.get(ValueLayout.JAVA_LONG, sgList + 16)).isEqualTo(0x2000);
            assertThat(s.get(ValueLayout.JAVA_INT, op + 48)).isEqualTo(2);
            assertThat(s.get(ValueLayout.JAVA_LONG, op + 56)).isEqualTo(0xF0L);
            assertThat(s.get(ValueLayout.JAVA_LONG, op + 64)).isEqualTo(0xFFL);
            b.handle(1, 0x10003);
            assertThat(s.get(ValueLayout.JAVA_INT, op + 28)).isEqualTo(0x10003);
            b.tagDel(0, 1, 0, 42).tagSync(2, 3, 0, 4);
            assertThat(b.handle(0)).isEqualTo(42);
            assertThat(b.flags(2)).isEqualTo(SrqOpsBatch.TM_SYNC);
            assertThat(b.unexpectedCnt(2)).isEqualTo(4);
            assertThat(b.link(3)).isEqualTo(s.address());
            assertThat(s.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(s.address() + 72);
            assertThat(s.get(ValueLayout.JAVA_LONG, 2 * 72 + 8)).isZero();
            assertThat(b.indexOf(s.address() + 144)).isEqualTo(2);
            assertThatThrownBy(() -> b.sge(0, 2, 0, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> b.tagAdd(3, 0, 0, 0, 0, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @Test
    void completionBatchCarriesTmInfoBesideIbvWc() {
        try (Arena arena = Arena.ofConfined()) {
            CompletionBatch b = CompletionBatch.allocate(arena, 2);
            assertThat(b.segment().byteSize()).isEqualTo(2 * VerbsAbi.WC_SIZE);
            b.setTmInfo(1, 0x0123456789ABCDEFL, 0xCAFEBABE);
            assertThat(b.tmTag(1)).isEqualTo(0x0123456789ABCDEFL);
            assertThat(b.tmPriv(1)).isEqualTo(0xCAFEBABE);
            b.set(1, 1, WcStatus.SUCCESS, WcOpcode.RECV, 0, 0, 0);
            assertThat(b.tmTag(1)).isZero();
            assertThat(WcOpcode.name(WcOpcode.TM_RECV)).isEqualTo("TM_RECV");
        }
    }
}
