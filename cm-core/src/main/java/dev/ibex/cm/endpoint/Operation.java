package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.WrOpcode;

/** A send-queue operation, as reported to per-operation completion callbacks. */
public enum Operation {
    SEND(WrOpcode.SEND),
    SEND_WITH_IMM(WrOpcode.SEND_WITH_IMM),
    WRITE(WrOpcode.RDMA_WRITE),
    WRITE_WITH_IMM(WrOpcode.RDMA_WRITE_WITH_IMM),
    READ(WrOpcode.RDMA_READ),
    COMPARE_AND_SWAP(WrOpcode.ATOMIC_CMP_AND_SWP),
    FETCH_AND_ADD(WrOpcode.ATOMIC_FETCH_AND_ADD);

    private static final Operation[] ALL = values();

    private final int opcode;

    Operation(int opcode) {
        this.opcode = opcode;
    }

    /** The {@link WrOpcode}. */
    int opcode() {
        return opcode;
    }

    /** The {@link WrId} kind of its work requests. */
    int wrKind() {
        return WrId.FIRST_ENDPOINT_KIND + ordinal();
    }

    static Operation ofWrKind(int kind) {
        int i = kind - WrId.FIRST_ENDPOINT_KIND;
        return i >= 0 && i < ALL.length ? ALL[i] : null;
    }

    /** Whether the operation reads its local buffer (and so consumes it) rather than filling it. */
    boolean consumesBuffer() {
        return this == SEND || this == SEND_WITH_IMM || this == WRITE || this == WRITE_WITH_IMM;
    }

    /** Whether its data may travel inline in the work request. */
    boolean mayInline() {
        return consumesBuffer();
    }
}
