package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.Access;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.Opcode.Operation;
import dev.ibex.softroce.wire.RocePacket;

/**
 * The responder's checks of a request in sequence that need nothing but the packet and a few QP facts (rxe_resp.c's
 * {@code check_op_seq}, {@code check_op_valid}, the RWR mask and {@code check_length}); a failure is a class C
 * error of the caller's.
 *
 * <p>Threading: stateless, any thread.
 */
final class RequestChecks {
    private RequestChecks() {}

    /** Whether {@code op} may follow the request opcode {@code previous} (-1: none) of the same QP (C9-90). */
    static boolean validSequence(int previous, Opcode op) {
        boolean inSend = previous == Opcode.RC_SEND_FIRST.code() || previous == Opcode.RC_SEND_MIDDLE.code();
        boolean inWrite = previous == Opcode.RC_RDMA_WRITE_FIRST.code()
                || previous == Opcode.RC_RDMA_WRITE_MIDDLE.code();
        boolean continuation = !op.position().isFirst();
        if (inSend) {
            return continuation && op.operation() == Operation.SEND;
        }
        if (inWrite) {
            return continuation && op.operation() == Operation.RDMA_WRITE;
        }
        return !continuation;
    }

    /** Whether the QP's remote access flags {@code flags} allow {@code operation}. */
    static boolean accessAllowed(int flags, Operation operation) {
        return switch (operation) {
            case RDMA_READ_REQUEST -> (flags & Access.REMOTE_READ.bit()) != 0;
            case RDMA_WRITE -> (flags & Access.REMOTE_WRITE.bit()) != 0;
            case COMPARE_SWAP, FETCH_ADD -> (flags & Access.REMOTE_ATOMIC.bit()) != 0;
            default -> true;
        };
    }

    /** Whether the packet starts consuming a receive WQE (rxe's RWR mask). */
    static boolean needsReceive(Opcode op) {
        return switch (op) {
            case RC_SEND_FIRST, RC_SEND_ONLY, RC_SEND_ONLY_WITH_IMMEDIATE, RC_SEND_ONLY_WITH_INVALIDATE,
                    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, RC_RDMA_WRITE_LAST_WITH_IMMEDIATE,
                    UD_SEND_ONLY, UD_SEND_ONLY_WITH_IMMEDIATE -> true;
            default -> false;
        };
    }

    /**
     * Whether request {@code pkt}'s payload length fits its position in the message (C9-92 .. C9-94): an ONLY
     * packet at most {@code mtu}, a LAST one 1 to {@code mtu} bytes, a FIRST or MIDDLE one exactly {@code mtu}; and a
     * RETH's DMA length at most 2^31.
     */
    static boolean lengthValid(RocePacket pkt, Opcode op, int mtu) {
        int payload = pkt.payloadLength();
        if (op.carriesPayload()) {
            Opcode.Position pos = op.position();
            boolean bad = pos == Opcode.Position.ONLY ? payload > mtu
                    : pos == Opcode.Position.LAST ? payload == 0 || payload > mtu : payload != mtu;
            if (bad) {
                return false;
            }
        }
        return !op.hasReth() || Integer.toUnsignedLong(pkt.rethDmaLength()) <= (1L << 31);
    }
}
