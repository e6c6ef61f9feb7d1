package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.softroce.wire.Opcode.Operation;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;

/**
 * The receive WQE a responder's message fills (rxe_resp.c's {@code qp->resp.wqe}, {@code get_srq_wqe},
 * {@code do_complete} and {@code flush_recv_queue}): taken from the RQ head (kept there until it completes) or
 * copied out of the SRQ, written through a cursor, completed on the receive CQ, flushed when the QP is in ERR.
 *
 * <p>Threading: the QP's receive task only (as {@link Responder}).
 */
final class ResponderReceive {
    private final SoftQueuePair qp;
    /** The scratch WQE an SRQ receive is copied into, or null without an SRQ. */
    private final RecvWqe srqWqe;
    /** Where SENDs go when the QP's SRQ is a tag-matching one, else null. */
    private final TagMatcher tm;
    private final Dma.RecvCursor cursor = new Dma.RecvCursor();
    /** The receive being filled by a (multi-packet) message, or null. */
    private RecvWqe wqe;
    private boolean lastWqeRaised;

    ResponderReceive(SoftQueuePair qp) {
        this.qp = qp;
        SoftSharedReceiveQueue srq = qp.softSrq();
        this.srqWqe = srq == null ? null
                : SoftQueuePair.newScratchRecvWqe(Math.max(srq.maxSge(), SoftTagMatchingSrq.CAPS.maxSge()));
        this.tm = srq instanceof SoftTagMatchingSrq t ? new TagMatcher(t) : null;
    }

    /** Drops the receive in hand without completing it and forgets QP_LAST_WQE_REACHED (RTR or RESET). */
    void reset() {
        wqe = null;
        cursor.reset();
        lastWqeRaised = false;
    }

    /** Whether a receive is in hand. */
    boolean inHand() {
        return wqe != null;
    }

    /** Takes the receive WQE a new message fills; false when none is posted. */
    boolean take() {
        SoftSharedReceiveQueue srq = qp.softSrq();
        if (srq != null) {
            if (!srq.take(srqWqe)) {
                return false;
            }
            wqe = srqWqe;
        } else {
            wqe = qp.rq().peek();
            if (wqe == null) {
                return false;
            }
        }
        cursor.reset();
        return true;
    }

    /** {@link #take()} for RC request {@code pkt}: on a tag-matching SRQ a SEND's TMH decides the buffer. */
    boolean take(RocePacket pkt) {
        return tm != null ? takeTagged(pkt) : take();
    }

    /** {@link #take()} on a tag-matching SRQ: a SEND's TMH decides between a tagged and an ordinary buffer. */
    private boolean takeTagged(RocePacket pkt) {
        if (pkt.opcode().operation() != Operation.SEND) {
            tm.plain();
            return take();
        }
        if (!tm.begin(pkt.segment(), pkt.payloadOffset(), pkt.payloadLength(), srqWqe)) {
            return false;
        }
        wqe = srqWqe;
        cursor.reset();
        return true;
    }

    /** Writes a SEND's payload into the receive in hand: {@link Dma}'s result code. */
    int scatterSend(RocePacket pkt) {
        int skip = tm == null ? 0 : tm.takeSkip(); // a matched eager message's TMH stays out of the buffer
        return scatter(pkt.segment(), pkt.payloadOffset() + skip, pkt.payloadLength() - skip);
    }

    /** The first packet of a multi-packet SEND was executed (a tag-matching SRQ reports the match now). */
    void firstOfManyExecuted() {
        if (tm != null) {
            tm.matchedFirstOfMany(wqe.wrId, qp.qpNum());
        }
    }

    /** The bytes the receive in hand can hold. */
    long capacity() {
        return wqe.totalLength;
    }

    /** Bytes written into the receive in hand so far. */
    long written() {
        return cursor.written;
    }

    /** Writes {@code n} bytes at {@code src + srcOff} on into the receive in hand: {@link Dma}'s result code. */
    int scatter(MemorySegment src, long srcOff, int n) {
        return Dma.scatterIntoRecv(qp.device(), qp.softPd(), wqe, cursor, src, srcOff, n);
    }

    /** Lets go of the receive in hand without completing it (UD class D: the message is dropped, the WQE stays). */
    void drop() {
        wqe = null;
    }

    /** Ends the receive in hand and takes it off the RQ (not an SRQ's); its work request ID, to complete. */
    long consume() {
        long wrId = wqe.wrId; // read before the slot goes back to the poster
        wqe = null;
        if (qp.softSrq() == null) {
            qp.rq().advance();
        }
        return wrId;
    }

    /** Completes the receive in hand on the receive CQ with {@code status} (0: success, with the other values). */
    void complete(int wcOpcode, int byteLen, int flags, int imm, int invalidated, int status, boolean solicited) {
        long wrId = consume();
        if (tm != null) {
            if (status != 0) {
                tm.plain();
                tm.cq().complete(wrId, status, wcOpcode, 0, qp.qpNum(), 0, 0, 0, true);
            } else {
                tm.complete(wcOpcode, wrId, byteLen, qp.qpNum(), flags, imm, solicited);
            }
        } else if (status != 0) {
            qp.recvCqSoft().complete(wrId, status, wcOpcode, 0, qp.qpNum(), 0, 0, 0, true);
        } else if ((flags & WcFlags.WITH_INV) != 0) {
            qp.recvCqSoft().completeWithInvalidate(wrId, byteLen, qp.qpNum(), flags, invalidated, 0, solicited);
        } else {
            qp.recvCqSoft().complete(wrId, 0, wcOpcode, byteLen, qp.qpNum(), flags, imm, 0, solicited);
        }
    }

    /** QP in ERR: flush every posted receive (or, on an SRQ, announce the last WQE once). */
    void flush() {
        SoftSharedReceiveQueue srq = qp.softSrq();
        if (srq != null) {
            if (wqe != null) {
                complete(WcOpcode.RECV, 0, 0, 0, 0, WcStatus.WR_FLUSH_ERR.code(), false);
            }
            if (!lastWqeRaised) {
                lastWqeRaised = true;
                qp.raise(AsyncEventType.QP_LAST_WQE_REACHED);
            }
            return;
        }
        wqe = null;
        RecvQueue rq = qp.rq();
        RecvWqe w;
        while ((w = rq.peek()) != null) {
            long wrId = w.wrId;
            rq.advance();
            qp.recvCqSoft().complete(wrId, WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, 0, qp.qpNum(), 0, 0, 0,
                    false);
        }
    }
}
