package dev.ibex.cm.fake;

import dev.ibex.cm.spi.Access;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A QP's access to registered memory, as the HCA checks it: a WR's gather list read by L_Key (an inline WR's may
 * point at unregistered memory, as on real devices), a receive's scatter list written by L_Key with local-write
 * access, and — on the target QP — a region reached by R_Key with the remote access the operation needs. A key of
 * another PD fails like an unknown one. Lock held.
 */
final class QpMemory {
    private final FakeQp qp;

    QpMemory(FakeQp qp) {
        this.qp = qp;
    }

    /** A WR's payload: its inline bytes, or its gather list read now; {@code null} on a bad L_Key. */
    byte[] data(FakeQp.SendWr wr) {
        return wr.inline() != null ? wr.inline() : gather(wr.addr(), wr.len(), wr.lkey(), false);
    }

    byte[] gather(long[] addr, int[] len, int[] lkey, boolean inline) {
        int total = 0;
        for (int x : len) {
            total += x;
        }
        byte[] out = new byte[total];
        int pos = 0;
        for (int j = 0; j < addr.length; j++) {
            MemorySegment s = local(addr[j], len[j], lkey[j], null);
            if (s == null) {
                if (!inline) {
                    return null;
                }
                s = MemorySegment.ofAddress(addr[j]).reinterpret(len[j]);
            }
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, out, pos, len[j]);
            pos += len[j];
        }
        return out;
    }

    /** Writes {@code data} from {@code from} into a receive of this QP; false when it does not fit or a key fails. */
    boolean scatter(FakeQp.Recv r, byte[] data, int from) {
        if (data.length - from > r.capacity()) {
            return false;
        }
        int pos = from;
        for (int j = 0; j < r.addr().length && pos < data.length; j++) {
            int n = Math.min(r.len()[j], data.length - pos);
            MemorySegment d = local(r.addr()[j], n, r.lkey()[j], Access.LOCAL_WRITE);
            if (d == null) {
                return false;
            }
            MemorySegment.copy(data, pos, d, ValueLayout.JAVA_BYTE, 0, n);
            pos += n;
        }
        return true;
    }

    /** Writes a READ's or atomic's result into the WR's own gather list, used as a scatter list. */
    boolean scatterLocal(FakeQp.SendWr wr, byte[] data) {
        return scatter(new FakeQp.Recv(wr.wrId(), wr.addr(), wr.len(), wr.lkey()), data, 0);
    }

    private MemorySegment local(long addr, long len, int lkey, Access need) {
        FakeMr mr = qp.fabric.mrs.get(lkey);
        if (mr == null || mr.pd() != qp.pd || (need != null && !mr.allows(need))) {
            return null;
        }
        return mr.slice(addr, len);
    }

    /** This QP's memory as a peer reaches it: the region under {@code rkey}, or {@code null} when refused. */
    MemorySegment remote(long addr, int rkey, long len, Access need) {
        FakeMr mr = qp.fabric.mrs.get(rkey);
        if (mr == null || mr.pd() != qp.pd || !mr.allows(need)) {
            return null;
        }
        return mr.slice(addr, len);
    }
}
