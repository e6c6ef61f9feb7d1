package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.WrId;
import dev.ibex.cm.spi.WrOpcode;

/** A send-queue operation, as reported to per-operation completion callbacks. */
public enum Operation {
    /** A message ({@code Connection.send}, {@code Datagram.send}). */
    SEND(WrOpcode.SEND),
    /** A message with immediate data. */
    SEND_WITH_IMM(WrOpcode.SEND_WITH_IMM),
    /** An RDMA WRITE into the peer's exposed memory. */
    WRITE(WrOpcode.RDMA_WRITE),
    /** An RDMA WRITE with immediate data, which consumes a receive at the peer. */
    WRITE_WITH_IMM(WrOpcode.RDMA_WRITE_WITH_IMM),
    /** An RDMA READ of the peer's exposed memory. */
    READ(WrOpcode.RDMA_READ),
    /** An atomic compare-and-swap on the peer's memory. */
    COMPARE_AND_SWAP(WrOpcode.ATOMIC_CMP_AND_SWP),
    /** An atomic fetch-and-add on the peer's memory. */
    FETCH_AND_ADD(WrOpcode.ATOMIC_FETCH_AND_ADD),
    /** A SEND that also invalidates one of the peer's memory windows (ends an exposure the peer gave us). */
    SEND_WITH_INV(WrOpcode.SEND_WITH_INV),
    /** Binding a memory window: reported for {@link Connection#expose}. */
    BIND_MW(WrOpcode.BIND_MW),
    /** Invalidating a memory window (ending an exposure); never reported to the handler. */
    LOCAL_INV(WrOpcode.LOCAL_INV);

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
        return this == SEND || this == SEND_WITH_IMM || this == WRITE || this == WRITE_WITH_IMM
                || this == SEND_WITH_INV;
    }

    /** Whether its data may travel inline in the work request. */
    boolean mayInline() {
        return consumesBuffer();
    }
}
