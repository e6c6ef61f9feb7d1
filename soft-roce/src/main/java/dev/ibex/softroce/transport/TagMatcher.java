package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.TagMatchingHeader;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import java.lang.foreign.MemorySegment;

/**
 * Where one incoming SEND goes on a QP attached to a {@link SoftTagMatchingSrq} (the receive half of rdma-core's
 * {@code Documentation/tag_matching.md}): on the message's first packet {@link #begin} reads the TMH and, under the
 * SRQ's list monitor, either takes the first armed tagged buffer that matches (EAGER: the payload lands without the
 * header; RNDV: the headers land and the buffer completes {@code TM_RNDV_INCOMPLETE}) or takes an ordinary receive
 * (unmatched tagged message: counted unexpected, whole message, {@code RECV} with {@code TM_SYNC_REQ}; anything else:
 * {@code TM_NO_TAG}). {@link #complete} writes the message's completion with its tag info on the SRQ's CQ.
 *
 * <p>Runs in its QP's receive task (one message at a time); allocates nothing.
 */
final class TagMatcher {
    private static final int NONE = 0;
    private static final int EAGER_MATCHED = 1;
    private static final int RNDV_MATCHED = 2;
    private static final int UNEXPECTED = 3;
    private static final int NO_TAG = 4;

    private final SoftTagMatchingSrq srq;
    private final TagMatchingHeader tmh = new TagMatchingHeader();
    private int kind = NONE;
    private int skip;
    private long tag;
    private int appCtx;

    TagMatcher(SoftTagMatchingSrq srq) {
        this.srq = srq;
    }

    SoftCompletionQueue cq() {
        return srq.softCq();
    }

    /**
     * First packet of a SEND: chooses the buffer and moves it into {@code into}; {@code false} when the message needs
     * an ordinary receive and none is posted (RNR: nothing was consumed or counted, the retry decides again).
     */
    boolean begin(MemorySegment payload, long offset, int length, RecvWqe into) {
        boolean tagged = tmh.tryWrap(payload, offset, length)
                && (tmh.opcode() == TagMatchingHeader.EAGER || tmh.opcode() == TagMatchingHeader.RNDV);
        TagList tags = srq.tags();
        synchronized (tags) {
            if (tagged && tags.match(tmh.tag(), into)) {
                boolean eager = tmh.opcode() == TagMatchingHeader.EAGER;
                kind = eager ? EAGER_MATCHED : RNDV_MATCHED;
                skip = eager ? TagMatchingHeader.SIZE : 0;
                tag = tmh.tag();
                appCtx = tmh.appCtx();
                return true;
            }
            if (!srq.take(into)) {
                return false;
            }
            if (tagged) {
                tags.countUnexpected();
            }
            kind = tagged ? UNEXPECTED : NO_TAG;
            skip = 0;
            return true;
        }
    }

    /** A receive taken for something other than a SEND (an RDMA WRITE with immediate). */
    void plain() {
        kind = NONE;
        skip = 0;
    }

    /** Header bytes the first packet's scatter leaves out (once per message). */
    int takeSkip() {
        int s = skip;
        skip = 0;
        return s;
    }

    /**
     * After a matched EAGER message's first packet when more follow: the match completion, reported at once so it is
     * ordered with the other matches and unexpected messages (data completion follows with the last packet).
     */
    void matchedFirstOfMany(long wrId, int qpNum) {
        if (kind == EAGER_MATCHED) {
            srq.softCq().completeTm(wrId, 0, WcOpcode.TM_RECV, 0, qpNum, WcFlags.TM_MATCH, 0, tag, appCtx, false);
            kind = -EAGER_MATCHED; // the last packet reports DATA_VALID only
        }
    }

    /** The message's completion (status 0), with what its kind implies. */
    void complete(int wcOpcode, long wrId, int byteLen, int qpNum, int flags, int imm, boolean solicited) {
        SoftCompletionQueue cq = srq.softCq();
        switch (kind) {
            case EAGER_MATCHED -> cq.completeTm(wrId, 0, WcOpcode.TM_RECV, byteLen, qpNum,
                    flags | WcFlags.TM_MATCH | WcFlags.TM_DATA_VALID, imm, tag, appCtx, solicited);
            case -EAGER_MATCHED -> cq.completeTm(wrId, 0, WcOpcode.TM_RECV, byteLen, qpNum,
                    flags | WcFlags.TM_DATA_VALID, imm, tag, appCtx, solicited);
            case RNDV_MATCHED -> cq.completeTm(wrId, WcStatus.TM_RNDV_INCOMPLETE.code(), WcOpcode.TM_RECV, byteLen,
                    qpNum, flags | WcFlags.TM_MATCH, imm, tag, appCtx, solicited);
            case UNEXPECTED -> cq.complete(wrId, 0, WcOpcode.RECV, byteLen, qpNum, flags | WcFlags.TM_SYNC_REQ, imm, 0,
                    solicited);
            case NO_TAG -> cq.complete(wrId, 0, WcOpcode.TM_NO_TAG, byteLen, qpNum, flags, imm, 0, solicited);
            default -> cq.complete(wrId, 0, wcOpcode, byteLen, qpNum, flags, imm, 0, solicited);
        }
        kind = NONE;
    }
}
