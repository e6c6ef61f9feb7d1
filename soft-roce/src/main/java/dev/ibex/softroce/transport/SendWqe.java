package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import java.lang.foreign.MemorySegment;

/**
 * A posted send WR, copied out of the poster's {@link SendBatch} (inline data into the WQE's own buffer) so the
 * batch can be reused at once, plus the transport's progress through it. Preallocated in the send queue's ring.
 * The WR fields are written by the poster before the WQE is published; the transport fields belong to the QP's
 * send task.
 */
public final class SendWqe {
    /** Transport states (rxe's {@code wqe_state}). */
    public static final int POSTED = 0;
    public static final int PROCESSING = 1;
    public static final int PENDING = 2;
    public static final int DONE = 3;
    public static final int ERROR = 4;

    // ---- the work request ---------------------------------------------------------------------------
    public long wrId;
    public int opcode;
    public int flags;
    /** Immediate data in host order. */
    public int imm;
    public int invalidateRkey;
    public long remoteAddr;
    public int rkey;
    public long compareAdd;
    public long swap;
    public SoftAddressHandle ah;
    public int remoteQpn;
    public int remoteQkey;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    /** This WQE's inline buffer (a slice of the queue's), valid when {@link #isInline()}. */
    public final MemorySegment inline;
    /** Total message length in bytes (an atomic's is 8; a local operation's 0). */
    public long length;
    // BIND_MW: the window gets rkey (above), [bindAddr, bindAddr + bindLength) of bindMr and bindAccess
    public SoftMemoryWindow mw;
    public SoftMemoryRegion bindMr;
    public long bindAddr;
    public long bindLength;
    public int bindAccess;

    // ---- transport progress (send task only) ----------------------------------------------------------
    public int state;
    public int status;
    public int firstPsn;
    public int lastPsn;
    /** Bytes not yet sent (requester) or not yet received (READ, completer). */
    public long resid;
    /** Gather position: current SGE and offset in it. */
    public int curSge;
    public long sgeOffset;
    /** The remote address of the next packet (WRITE/READ), advanced per packet. */
    public long iova;
    /** Whether the WQE holds one of the QP's {@code max_rd_atomic} slots. */
    public boolean hasRdAtomic;

    SendWqe(int maxSge, MemorySegment inline) {
        int n = Math.max(1, maxSge);
        sgeAddr = new long[n];
        sgeLength = new int[n];
        sgeLkey = new int[n];
        this.inline = inline;
    }

    public boolean isInline() {
        return (flags & SendFlags.INLINE) != 0;
    }

    /** Whether the WQE is executed by the requester itself, without packets (BIND_MW, LOCAL_INV). */
    public boolean isLocal() {
        return opcode == dev.ibex.cm.spi.WrOpcode.BIND_MW || opcode == dev.ibex.cm.spi.WrOpcode.LOCAL_INV;
    }

    public boolean isSignaled() {
        return (flags & SendFlags.SIGNALED) != 0;
    }

    /** Rewinds the gather position to the start of the message. */
    public void rewind() {
        resid = length;
        curSge = 0;
        sgeOffset = 0;
    }
}
