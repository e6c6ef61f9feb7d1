package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.RecvBatch;

/**
 * A posted receive: its id and scatter list, copied out of the poster's {@link RecvBatch} at post time so the batch
 * can be reused at once. Preallocated in rings and reused; the keys are resolved when data lands (a bad lkey is
 * the receiver's {@code LOC_PROT_ERR} then, as in verbs).
 */
public final class RecvWqe {
    public long wrId;
    public int numSge;
    public final long[] addr;
    public final int[] length;
    public final int[] lkey;
    /** Sum of the scatter lengths. */
    public long totalLength;

    RecvWqe(int maxSge) {
        addr = new long[Math.max(1, maxSge)];
        length = new int[Math.max(1, maxSge)];
        lkey = new int[Math.max(1, maxSge)];
    }

    void copyFrom(RecvBatch b, int i, int n) {
        wrId = b.wrId(i);
        numSge = n;
        long total = 0;
        for (int j = 0; j < n; j++) {
            addr[j] = b.sgeAddr(i, j);
            int len = b.sgeLength(i, j);
            length[j] = len;
            lkey[j] = b.sgeLkey(i, j);
            total += Integer.toUnsignedLong(len);
        }
        totalLength = total;
    }

    void copyFrom(RecvWqe o) {
        wrId = o.wrId;
        numSge = o.numSge;
        totalLength = o.totalLength;
        System.arraycopy(o.addr, 0, addr, 0, o.numSge);
        System.arraycopy(o.length, 0, length, 0, o.numSge);
        System.arraycopy(o.lkey, 0, lkey, 0, o.numSge);
    }
}
