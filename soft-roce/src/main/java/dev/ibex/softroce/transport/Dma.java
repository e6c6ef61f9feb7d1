package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.Access;
import java.lang.foreign.MemorySegment;

/**
 * Moves message bytes between packets and the memory a WQE's scatter/gather list names (rxe's {@code copy_data}):
 * each entry's lkey is looked up in the device's MR table, checked against the QP's PD, the range and the access
 * needed, and the bytes are copied with one {@link MemorySegment#copy} per entry touched. Nothing is allocated.
 * Every method returns {@code true} on success and {@code false} on a protection error (bad lkey, other PD, out of
 * range, no access, or memory already freed).
 */
final class Dma {
    private Dma() {}

    /**
     * Copies the next {@code n} bytes of a send WQE (its inline buffer or its gather list, from the WQE's cursor)
     * into {@code dst} and advances the cursor.
     */
    static boolean gather(SoftDevice dev, SoftProtectionDomain pd, SendWqe w, MemorySegment dst, long dstOff, int n) {
        if (w.isInline()) {
            MemorySegment.copy(w.inline, w.sgeOffset, dst, dstOff, n);
            w.sgeOffset += n;
            w.resid -= n;
            return true;
        }
        try {
            while (n > 0) {
                if (w.curSge >= w.numSge) {
                    return false;
                }
                long avail = Integer.toUnsignedLong(w.sgeLength[w.curSge]) - w.sgeOffset;
                if (avail <= 0) {
                    w.curSge++;
                    w.sgeOffset = 0;
                    continue;
                }
                int chunk = (int) Math.min(avail, n);
                long addr = w.sgeAddr[w.curSge] + w.sgeOffset;
                SoftMemoryRegion mr = dev.memoryRegion(w.sgeLkey[w.curSge]);
                if (mr == null || mr.softPd() != pd || mr.check(addr, chunk, 0) != SoftMemoryRegion.OK) {
                    return false;
                }
                MemorySegment.copy(mr.segment(), mr.offsetOf(addr), dst, dstOff, chunk);
                dstOff += chunk;
                n -= chunk;
                w.resid -= chunk;
                w.sgeOffset += chunk;
            }
            return true;
        } catch (IllegalStateException e) { // the MR's memory was freed under us
            return false;
        }
    }

    /** Skips {@code n} bytes of a send WQE's data (a retry resuming after packets the peer already acked). */
    static void skip(SendWqe w, long n) {
        w.resid -= n;
        if (w.isInline()) {
            w.sgeOffset += n;
            return;
        }
        while (n > 0 && w.curSge < w.numSge) {
            long avail = Integer.toUnsignedLong(w.sgeLength[w.curSge]) - w.sgeOffset;
            if (avail <= n) {
                n -= avail;
                w.curSge++;
                w.sgeOffset = 0;
            } else {
                w.sgeOffset += n;
                n = 0;
            }
        }
    }

    /**
     * Copies {@code n} bytes into a send WQE's scatter list at its cursor (an RDMA READ's data, an atomic's
     * original value), which needs LOCAL_WRITE, and advances the cursor.
     */
    static boolean scatterIntoSend(SoftDevice dev, SoftProtectionDomain pd, SendWqe w, MemorySegment src, long srcOff,
            int n) {
        try {
            while (n > 0) {
                if (w.curSge >= w.numSge) {
                    return false;
                }
                long avail = Integer.toUnsignedLong(w.sgeLength[w.curSge]) - w.sgeOffset;
                if (avail <= 0) {
                    w.curSge++;
                    w.sgeOffset = 0;
                    continue;
                }
                int chunk = (int) Math.min(avail, n);
                long addr = w.sgeAddr[w.curSge] + w.sgeOffset;
                SoftMemoryRegion mr = dev.memoryRegion(w.sgeLkey[w.curSge]);
                if (mr == null || mr.softPd() != pd
                        || mr.check(addr, chunk, Access.LOCAL_WRITE.bit()) != SoftMemoryRegion.OK) {
                    return false;
                }
                MemorySegment.copy(src, srcOff, mr.segment(), mr.offsetOf(addr), chunk);
                srcOff += chunk;
                n -= chunk;
                w.resid -= chunk;
                w.sgeOffset += chunk;
            }
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** Scatter position in a receive WQE. */
    static final class RecvCursor {
        int sge;
        long offset;
        /** Bytes written so far. */
        long written;

        void reset() {
            sge = 0;
            offset = 0;
            written = 0;
        }
    }

    /** Result of {@link #scatterIntoRecv}. */
    static final int OK = 0;
    static final int NO_ROOM = 1;
    static final int PROTECTION = 2;

    /**
     * Copies {@code n} bytes into a receive WQE's scatter list at {@code c} (needs LOCAL_WRITE).
     *
     * @return {@link #OK}, {@link #NO_ROOM} (the message is longer than the buffers: a length error) or
     *     {@link #PROTECTION} (bad lkey, PD, range or access)
     */
    static int scatterIntoRecv(SoftDevice dev, SoftProtectionDomain pd, RecvWqe r, RecvCursor c, MemorySegment src,
            long srcOff, int n) {
        try {
            while (n > 0) {
                if (c.sge >= r.numSge) {
                    return NO_ROOM;
                }
                long avail = Integer.toUnsignedLong(r.length[c.sge]) - c.offset;
                if (avail <= 0) {
                    c.sge++;
                    c.offset = 0;
                    continue;
                }
                int chunk = (int) Math.min(avail, n);
                long addr = r.addr[c.sge] + c.offset;
                SoftMemoryRegion mr = dev.memoryRegion(r.lkey[c.sge]);
                if (mr == null || mr.softPd() != pd
                        || mr.check(addr, chunk, Access.LOCAL_WRITE.bit()) != SoftMemoryRegion.OK) {
                    return PROTECTION;
                }
                MemorySegment.copy(src, srcOff, mr.segment(), mr.offsetOf(addr), chunk);
                srcOff += chunk;
                n -= chunk;
                c.offset += chunk;
                c.written += chunk;
            }
            return OK;
        } catch (IllegalStateException e) {
            return PROTECTION;
        }
    }
}
