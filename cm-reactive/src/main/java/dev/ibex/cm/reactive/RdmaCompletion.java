package dev.ibex.cm.reactive;

import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;

/**
 * One work completion ({@code struct ibv_wc}) copied out of the poll batch, which is reused at once: a value the
 * subscriber may keep.
 *
 * @param wrId the work request's id
 * @param status its status ({@code IBV_WC_SUCCESS} or why it failed or was flushed)
 * @param opcode a {@link WcOpcode} value (valid for successful completions only)
 * @param vendorErr the vendor's error syndrome of a failed completion
 * @param byteLen bytes received (receives, RDMA READ, atomics)
 * @param immData immediate data in host order when {@link WcFlags#WITH_IMM} is set; the invalidated rkey when
 *     {@link WcFlags#WITH_INV} is
 * @param qpNum the local QP the work request was posted to
 * @param srcQp the sending QP of a UD receive
 * @param flags {@link WcFlags} bits
 * @param pkeyIndex the P_Key index of a UD receive (GSI)
 * @param slid the sender's LID of a UD receive (InfiniBand)
 * @param sl the service level of a UD receive
 * @param dlidPathBits the destination LID path bits of a UD receive
 */
public record RdmaCompletion(long wrId, WcStatus status, int opcode, int vendorErr, int byteLen, int immData,
        int qpNum, int srcQp, int flags, int pkeyIndex, int slid, int sl, int dlidPathBits) {

    static RdmaCompletion copy(CompletionBatch b, int i) {
        return new RdmaCompletion(b.wrId(i), b.status(i), b.opcode(i), b.vendorErr(i), b.byteLen(i), b.immData(i),
                b.qpNum(i), b.srcQp(i), b.flags(i), b.pkeyIndex(i), b.slid(i), b.sl(i), b.dlidPathBits(i));
    }

    /**
     * Whether the work request succeeded ({@code IBV_WC_SUCCESS}).
     *
     * @return {@code true} on success; then {@link #opcode()} and {@link #byteLen()} are valid
     */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /**
     * Whether this completes a receive ({@link WcOpcode#isReceive}).
     *
     * @return {@code true} for a receive (including RECV_RDMA_WITH_IMM)
     */
    public boolean isReceive() {
        return WcOpcode.isReceive(opcode);
    }

    @Override
    public String toString() {
        return "RdmaCompletion[wr_id=" + wrId + " " + status + (isSuccess() ? " " + WcOpcode.name(opcode) : "")
                + " qp=0x" + Integer.toHexString(qpNum) + (byteLen > 0 ? " " + byteLen + "B" : "") + "]";
    }
}
