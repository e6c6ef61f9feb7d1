package dev.ibex.it.conformance;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;

/** A work completion copied out of a {@link CompletionBatch} (tests may allocate; the data path does not). */
public record Completion(long wrId, WcStatus status, int opcode, int byteLen, int immData, int flags, int qpNum,
        int srcQp, long tmTag, int tmPriv) {

    static Completion of(CompletionBatch b, int i) {
        boolean tm = b.opcode(i) == WcOpcode.TM_RECV;
        return new Completion(b.wrId(i), b.status(i), b.opcode(i), b.byteLen(i), b.immData(i), b.flags(i), b.qpNum(i),
                b.srcQp(i), tm ? b.tmTag(i) : 0, tm ? b.tmPriv(i) : 0);
    }

    /** A receive completion (only meaningful for successful ones: failed completions carry no opcode). */
    public boolean isReceive() {
        return WcOpcode.isReceive(opcode);
    }

    @Override
    public String toString() {
        return "wc[wr=" + wrId + " " + status + (status == WcStatus.SUCCESS ? " " + WcOpcode.name(opcode) : "")
                + " len=" + byteLen + "]";
    }
}
