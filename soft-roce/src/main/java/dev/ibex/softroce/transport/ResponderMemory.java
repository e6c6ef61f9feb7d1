package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.Access;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * What a {@link Responder}'s requests do to this side's memory, each access behind its {@link RkeyCheck} (rxe's
 * {@code write_data_in}, the copy of {@code read_reply} and {@code atomic_reply}'s operation): the RDMA WRITE in
 * progress and its copies, the range check of a READ and the copy of each of its response packets, the
 * compare-and-swap or fetch-and-add of an atomic. It answers {@link #OK} or what went wrong; the responder NAKs.
 *
 * <p>Threading: the QP's receive task only (as {@link Responder}); allocates nothing.
 */
final class ResponderMemory {
    /** The access was made. */
    static final int OK = 0;
    /** The R_Key does not grant it, or the memory is gone (NAK remote-access-error). */
    static final int NO_ACCESS = 1;
    /** A WRITE packet's payload or padding does not fit the request (NAK invalid-request). */
    static final int BAD_LENGTH = 2;
    /** An atomic's address is not 8-byte aligned (NAK invalid-request). */
    static final int MISALIGNED = 3;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final SoftQueuePair qp;
    private final RkeyCheck rkeys = new RkeyCheck();
    // RDMA WRITE in progress
    private long va;
    private int rkey;
    private long resid;
    private long length;
    /** The value the last atomic found at its target. */
    private long original;

    ResponderMemory(SoftQueuePair qp) {
        this.qp = qp;
    }

    /** Copies a WRITE packet's payload to where the WRITE in progress has got (a first packet starts one). */
    int write(RocePacket pkt) {
        Opcode op = pkt.opcode();
        if (op.hasReth()) {
            va = pkt.rethVirtualAddress();
            rkey = pkt.rethRKey();
            resid = Integer.toUnsignedLong(pkt.rethDmaLength());
            length = resid;
        }
        int payload = pkt.payloadLength();
        if (op.hasReth() && resid == 0) {
            // C9-88: a zero-length WRITE names no memory; nothing to check
            return payload != 0 ? BAD_LENGTH : OK;
        }
        SoftMemoryRegion mr = rkeys.enter(qp, rkey, va, resid, Access.REMOTE_WRITE.bit());
        if (mr == null) {
            return NO_ACCESS;
        }
        try {
            int mtu = qp.mtuBytes();
            boolean bad = resid > mtu ? payload != mtu || pkt.padCount() != 0
                    : payload != resid || pkt.padCount() != ((-(int) resid) & 3);
            if (bad) {
                return BAD_LENGTH;
            }
            MemorySegment.copy(pkt.segment(), pkt.payloadOffset(), mr.segment(), mr.offsetOf(va), payload);
        } catch (IllegalStateException freed) {
            return NO_ACCESS;
        } finally {
            rkeys.leave();
        }
        va += payload;
        resid -= payload;
        return OK;
    }

    /** The length the WRITE in progress asked for (a WRITE_WITH_IMM's completion reports it). */
    long writeLength() {
        return length;
    }

    /** Whether {@code readKey} grants reading {@code [readVa, readVa + len)} (each response packet checks again). */
    boolean readable(int readKey, long readVa, long len) {
        if (len == 0) {
            return true;
        }
        SoftMemoryRegion mr = rkeys.enter(qp, readKey, readVa, len, Access.REMOTE_READ.bit());
        rkeys.leave(); // checked for the whole range now; each response packet enters again for its copy
        return mr != null;
    }

    /**
     * Copies the next {@code payload} bytes of the READ {@code res} replies with to {@code dst} at {@code dstOffset};
     * false if its R_Key no longer grants them or the memory is gone.
     */
    boolean readInto(ResponderResource res, int payload, MemorySegment dst, long dstOffset) {
        // checked per packet: a window invalidated during a long reply stops it at the next packet
        SoftMemoryRegion mr = rkeys.enter(qp, res.rkey, res.va, payload, Access.REMOTE_READ.bit());
        boolean copied = false;
        try {
            if (mr != null) {
                MemorySegment.copy(mr.segment(), mr.offsetOf(res.va), dst, dstOffset, payload);
                copied = true;
            }
        } catch (IllegalStateException freed) {
            // the memory is gone
        } finally {
            rkeys.leave();
        }
        return copied;
    }

    /** Executes an atomic request on its 8-byte target; on {@link #OK} {@link #original()} is what it found. */
    int atomic(RocePacket pkt) {
        long target = pkt.atomicVirtualAddress();
        int key = pkt.atomicRKey();
        SoftMemoryRegion mr = rkeys.enter(qp, key, target, 8, Access.REMOTE_ATOMIC.bit());
        if (mr == null) {
            return NO_ACCESS;
        }
        try {
            if ((target & 7) != 0) {
                return MISALIGNED;
            }
            MemorySegment m = mr.segment();
            long off = mr.offsetOf(target);
            if (pkt.opcode() == Opcode.RC_COMPARE_SWAP) {
                original = (long) LONG.compareAndExchange(m, off, pkt.atomicCompare(), pkt.atomicSwapOrAdd());
            } else {
                original = (long) LONG.getAndAdd(m, off, pkt.atomicSwapOrAdd());
            }
        } catch (IllegalStateException freed) {
            return NO_ACCESS;
        } finally {
            rkeys.leave();
        }
        return OK;
    }

    /** The value the last {@link #atomic} found at its target. */
    long original() {
        return original;
    }
}
