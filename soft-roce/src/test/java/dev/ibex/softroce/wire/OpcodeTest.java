package dev.ibex.softroce.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.softroce.wire.Opcode.Operation;
import dev.ibex.softroce.wire.Opcode.Position;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The opcode table against wire.md §1.3 (values, header lengths) and the header order of IBTA 9.2. */
class OpcodeTest {
    /** wire.md §1.3: code → header length. */
    private static final Map<Integer, Integer> HEADER_LENGTHS = Map.ofEntries(
            Map.entry(0x00, 12), Map.entry(0x01, 12), Map.entry(0x02, 12), Map.entry(0x03, 16), Map.entry(0x04, 12),
            Map.entry(0x05, 16), Map.entry(0x06, 28), Map.entry(0x07, 12), Map.entry(0x08, 12), Map.entry(0x09, 16),
            Map.entry(0x0A, 28), Map.entry(0x0B, 32), Map.entry(0x0C, 28), Map.entry(0x0D, 16), Map.entry(0x0E, 12),
            Map.entry(0x0F, 16), Map.entry(0x10, 16), Map.entry(0x11, 16), Map.entry(0x12, 24), Map.entry(0x13, 40),
            Map.entry(0x14, 40), Map.entry(0x16, 16), Map.entry(0x17, 16), Map.entry(0x64, 20), Map.entry(0x65, 24));

    @Test
    void everyCodeHasTheDocumentedHeaderLength() {
        for (int code = 0; code < 256; code++) {
            Opcode op = Opcode.of(code);
            if (HEADER_LENGTHS.containsKey(code)) {
                assertThat(op).as("0x%02x", code).isNotNull();
                assertThat(op.code()).isEqualTo(code);
                assertThat(op.headerLength()).as(op.name()).isEqualTo(HEADER_LENGTHS.get(code));
            } else {
                assertThat(op).as("0x%02x", code).isNull();
            }
        }
        assertThat(Opcode.values()).hasSize(HEADER_LENGTHS.size());
        assertThat(Opcode.of(-1)).isNull();
        assertThat(Opcode.of(0x164)).isNull();
    }

    @Test
    void extendedHeaderOffsetsFollowIbtaOrder() {
        assertThat(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.rethOffset()).isEqualTo(12);
        assertThat(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(28);
        assertThat(Opcode.RC_ATOMIC_ACKNOWLEDGE.aethOffset()).isEqualTo(12);
        assertThat(Opcode.RC_ATOMIC_ACKNOWLEDGE.atomicAckEthOffset()).isEqualTo(16);
        assertThat(Opcode.RC_COMPARE_SWAP.atomicEthOffset()).isEqualTo(12);
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.dethOffset()).isEqualTo(12);
        assertThat(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE.immDtOffset()).isEqualTo(20);
        assertThat(Opcode.RC_SEND_LAST_WITH_INVALIDATE.iethOffset()).isEqualTo(12);
        assertThat(Opcode.RC_SEND_ONLY.rethOffset()).isEqualTo(-1);
        assertThat(Opcode.RC_SEND_ONLY.hasReth()).isFalse();
        assertThat(Opcode.RC_RDMA_READ_REQUEST.hasReth()).isTrue();
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.hasAeth()).isFalse();
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_FIRST.hasAeth()).isTrue();
    }

    @Test
    void classification() {
        assertThat(Opcode.RC_SEND_FIRST.position()).isEqualTo(Position.FIRST);
        assertThat(Opcode.RC_RDMA_WRITE_MIDDLE.position()).isEqualTo(Position.MIDDLE);
        assertThat(Opcode.RC_SEND_LAST_WITH_INVALIDATE.position()).isEqualTo(Position.LAST);
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_ONLY.position()).isEqualTo(Position.ONLY);
        assertThat(Opcode.UD_SEND_ONLY.transport()).isEqualTo(Opcode.Transport.UD);
        assertThat(Opcode.RC_SEND_ONLY_WITH_INVALIDATE.transport()).isEqualTo(Opcode.Transport.RC);
        assertThat(Opcode.RC_RDMA_READ_REQUEST.carriesPayload()).isFalse();
        assertThat(Opcode.RC_FETCH_ADD.carriesPayload()).isFalse();
        assertThat(Opcode.RC_ACKNOWLEDGE.carriesPayload()).isFalse();
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE.carriesPayload()).isTrue();
        assertThat(Opcode.RC_RDMA_READ_RESPONSE_LAST.isResponse()).isTrue();
        assertThat(Opcode.RC_ATOMIC_ACKNOWLEDGE.isResponse()).isTrue();
        assertThat(Opcode.RC_COMPARE_SWAP.isRequest()).isTrue();
        assertThat(Opcode.RC_COMPARE_SWAP.operation()).isEqualTo(Operation.COMPARE_SWAP);
        assertThat(Position.of(true, true)).isEqualTo(Position.ONLY);
        assertThat(Position.of(true, false)).isEqualTo(Position.FIRST);
        assertThat(Position.of(false, false)).isEqualTo(Position.MIDDLE);
        assertThat(Position.of(false, true)).isEqualTo(Position.LAST);
        assertThat(Position.ONLY.isFirst() && Position.ONLY.isLast()).isTrue();
        assertThat(Position.MIDDLE.isFirst() || Position.MIDDLE.isLast()).isFalse();
    }

    @Test
    void opcodeSelectors() {
        for (Position p : Position.values()) {
            assertThat(Opcode.rcSend(p, false, false).position()).isEqualTo(p);
            assertThat(Opcode.rcSend(p, false, false).operation()).isEqualTo(Operation.SEND);
            assertThat(Opcode.rcWrite(p, false).position()).isEqualTo(p);
            assertThat(Opcode.rcWrite(p, false).operation()).isEqualTo(Operation.RDMA_WRITE);
            assertThat(Opcode.rcReadResponse(p).position()).isEqualTo(p);
        }
        assertThat(Opcode.rcSend(Position.LAST, true, false)).isEqualTo(Opcode.RC_SEND_LAST_WITH_IMMEDIATE);
        assertThat(Opcode.rcSend(Position.ONLY, false, true)).isEqualTo(Opcode.RC_SEND_ONLY_WITH_INVALIDATE);
        assertThat(Opcode.rcSend(Position.MIDDLE, true, false)).isEqualTo(Opcode.RC_SEND_MIDDLE);
        assertThat(Opcode.rcWrite(Position.ONLY, true)).isEqualTo(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
        assertThat(Opcode.rcWrite(Position.FIRST, true)).isEqualTo(Opcode.RC_RDMA_WRITE_FIRST);
        assertThat(Opcode.udSend(true)).isEqualTo(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE);
        assertThatThrownBy(() -> Opcode.rcSend(Position.ONLY, true, true))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
