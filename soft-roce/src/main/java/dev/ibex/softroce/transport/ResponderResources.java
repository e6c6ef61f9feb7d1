package dev.ibex.softroce.transport;

import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RocePacket;

/**
 * A QP's ring of {@code max_dest_rd_atomic} {@link ResponderResource}s (rxe_resp.c's {@code rxe_prepare_res} and
 * {@code find_resource}): each READ and atomic executed takes the next slot, the oldest is overwritten, and a
 * duplicate request is answered from the slot whose PSN range holds it — a READ read again (only a subset of the
 * original), an atomic's original value resent.
 *
 * <p>Threading: the QP's receive task only (as {@link Responder}).
 */
final class ResponderResources {
    private ResponderResource[] ring = new ResponderResource[0];
    private int head;

    /**
     * Empties the ring and sizes it for {@code maxDestRdAtomic} outstanding requests (a QP entering RTR or RESET).
     * A slot's resource is made when a READ or atomic first takes it: most connections never take one, and every
     * QP entering RTR made them all (5 % of what a connection's setup allocated, issue 17).
     */
    void reset(int maxDestRdAtomic) {
        ring = new ResponderResource[maxDestRdAtomic];
        head = 0;
    }

    /** Whether the QP accepts no READ or atomic at all ({@code max_dest_rd_atomic} = 0). */
    boolean isEmpty() {
        return ring.length == 0;
    }

    /** Records a READ of {@code length} bytes at {@code va} answered in {@code packets} packets from {@code psn}. */
    ResponderResource startRead(int psn, int packets, long va, int rkey, long length) {
        ResponderResource res = next();
        res.type = ResponderResource.READ;
        res.replay = false;
        res.firstPsn = psn;
        res.curPsn = psn;
        res.lastPsn = Psn.add(psn, packets - 1);
        res.va = va;
        res.vaOrg = va;
        res.resid = length;
        res.length = length;
        res.rkey = rkey;
        res.started = false;
        return res;
    }

    /** Records an atomic executed at {@code psn} that found {@code original}. */
    void startAtomic(int psn, long original) {
        ResponderResource res = next();
        res.type = ResponderResource.ATOMIC;
        res.replay = false;
        res.firstPsn = psn;
        res.lastPsn = psn;
        res.curPsn = psn;
        res.original = original;
    }

    /**
     * The READ a duplicate READ request {@code pkt} repeats, set up to be answered again from its PSN, or
     * {@code null} when none holds it or it is not a subset of the original request (dropped, class D).
     */
    ResponderResource replayRead(RocePacket pkt) {
        ResponderResource res = find(pkt.psn(), ResponderResource.READ);
        if (res == null) {
            return null;
        }
        long iova = pkt.rethVirtualAddress();
        long len = Integer.toUnsignedLong(pkt.rethDmaLength());
        if (iova < res.vaOrg || len > res.length || iova + len > res.vaOrg + res.length
                || pkt.rethRKey() != res.rkey) {
            return null;
        }
        res.curPsn = pkt.psn();
        // rxe read_reply: a replay from the first PSN starts again (FIRST/ONLY); one from the middle — the
        // requester asks for the packets it lacks — continues the sequence its completer is in (MIDDLE/LAST)
        res.started = pkt.psn() != res.firstPsn;
        res.replay = true;
        res.vaOrg = iova;
        res.va = iova;
        res.resid = len;
        return res;
    }

    /** The atomic a duplicate atomic request at {@code psn} repeats, marked replayed, or {@code null}. */
    ResponderResource replayAtomic(int psn) {
        ResponderResource res = find(psn, ResponderResource.ATOMIC);
        if (res != null) {
            res.replay = true;
        }
        return res;
    }

    private ResponderResource next() {
        ResponderResource res = ring[head];
        if (res == null) {
            res = ring[head] = new ResponderResource();
        }
        head = (head + 1) % ring.length;
        return res;
    }

    private ResponderResource find(int p, int type) {
        for (ResponderResource r : ring) {
            if (r != null && r.type == type && Psn.compare(p, r.firstPsn) >= 0 && Psn.compare(p, r.lastPsn) <= 0) {
                return r;
            }
        }
        return null;
    }

    /** The slots in use, for diagnostics: R or A and the PSN range of each. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (ResponderResource r : ring) {
            if (r != null && r.type != ResponderResource.NONE) {
                sb.append(r.type == ResponderResource.READ ? 'R' : 'A').append(Integer.toHexString(r.firstPsn));
                if (r.lastPsn != r.firstPsn) {
                    sb.append('-').append(Integer.toHexString(r.lastPsn));
                }
                sb.append(' ');
            }
        }
        return sb.append(']').toString();
    }
}
