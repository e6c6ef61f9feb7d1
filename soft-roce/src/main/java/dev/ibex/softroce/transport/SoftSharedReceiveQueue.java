package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SharedReceiveQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code ibv_srq}: receives shared by several QPs. One producer (the posting thread) and several consumers (the
 * receive tasks of the QPs, possibly on different threads): a bounded queue with per-slot sequence numbers where a
 * consumer claims a slot by CAS, copies the WQE into its own scratch WQE and frees the slot.
 *
 * <p>The limit event is one-shot: when a take leaves fewer than {@code srqLimit} WQEs, {@code SRQ_LIMIT_REACHED} is
 * raised and the limit disarmed until {@link #modify} sets it again. Closing fails with EBUSY while QPs use it.
 * Not final only for {@link SoftTagMatchingSrq}, which adds a matching list.
 */
public class SoftSharedReceiveQueue implements SharedReceiveQueue {
    private final SoftProtectionDomain pd;
    private final int maxWr;
    private final int maxSge;
    private final RecvWqe[] ring;
    private final AtomicLongArray sequence;
    private final int mask;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();
    private final AtomicInteger limit = new AtomicInteger();
    private final AtomicInteger users = new AtomicInteger();
    private volatile boolean closed;
    private volatile Object context;

    SoftSharedReceiveQueue(SoftProtectionDomain pd, int maxWr, int maxSge, int srqLimit) {
        var attrs = pd.softDevice().queryDevice();
        if (maxWr <= 0 || maxWr > attrs.maxSrqWr() || maxSge <= 0 || maxSge > attrs.maxSrqSge()) {
            throw new IllegalArgumentException("SRQ needs 1 <= maxWr <= " + attrs.maxSrqWr() + " and 1 <= maxSge <= "
                    + attrs.maxSrqSge() + ", got " + maxWr + ", " + maxSge);
        }
        if (srqLimit < 0 || srqLimit > maxWr) {
            throw new IllegalArgumentException("srqLimit must be within 0.." + maxWr + ", got " + srqLimit);
        }
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        int size = Integer.highestOneBit(Math.max(1, maxWr - 1)) << 1;
        this.ring = new RecvWqe[size];
        this.sequence = new AtomicLongArray(size);
        for (int i = 0; i < size; i++) {
            ring[i] = new RecvWqe(maxSge);
            sequence.set(i, i);
        }
        this.mask = size - 1;
        this.limit.set(srqLimit);
        pd.addChild();
        pd.softDevice().tracker().opened(this);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public Object context() {
        return context;
    }

    @Override
    public void context(Object context) {
        this.context = context;
    }

    public int maxSge() {
        return maxSge;
    }

    @Override
    public void postRecv(RecvBatch batch, int count) {
        requireOpen();
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        for (int i = 0; i < count; i++) {
            int n = batch.numSge(i);
            if (n < 0 || n > maxSge) {
                throw new PostException("ibv_post_srq_recv", Errno.EINVAL.number(), i,
                        "the WR has " + n + " scatter entries, the SRQ allows " + maxSge);
            }
            long t = tail.get();
            int idx = (int) (t & mask);
            if (t - head.get() >= maxWr || sequence.getAcquire(idx) != t) {
                throw new PostException("ibv_post_srq_recv", Errno.ENOMEM.number(), i,
                        "the shared receive queue is full (" + maxWr + " WRs)");
            }
            ring[idx].copyFrom(batch, i, n);
            sequence.setRelease(idx, t + 1);
            tail.setRelease(t + 1);
        }
    }

    /**
     * Consumer: moves the oldest WQE into {@code into}. Raises the limit event when this leaves fewer than the
     * armed limit.
     *
     * @return {@code false} when empty
     */
    public boolean take(RecvWqe into) {
        long h;
        int idx;
        for (;;) {
            h = head.get();
            idx = (int) (h & mask);
            long dif = sequence.getAcquire(idx) - (h + 1);
            if (dif == 0) {
                if (head.compareAndSet(h, h + 1)) {
                    break;
                }
            } else if (dif < 0) {
                return false;
            }
            Thread.onSpinWait();
        }
        into.copyFrom(ring[idx]);
        sequence.setRelease(idx, h + mask + 1);
        int lim = limit.get();
        if (lim > 0 && tail.get() - (h + 1) < lim && limit.compareAndSet(lim, 0)) {
            pd.softDevice().events().raise(AsyncEventType.SRQ_LIMIT_REACHED, this);
        }
        return true;
    }

    /** WQEs posted and not yet taken (approximate while consumers run). */
    public int size() {
        return (int) Math.max(0, tail.get() - head.get());
    }

    @Override
    public void modify(int newMaxWr, int srqLimit, int attrMask) {
        requireOpen();
        if ((attrMask & ~(MAX_WR | LIMIT)) != 0) {
            throw new RdmaException("ibv_modify_srq", Errno.EINVAL, "unknown attribute mask 0x"
                    + Integer.toHexString(attrMask));
        }
        if ((attrMask & MAX_WR) != 0) {
            throw new RdmaException("ibv_modify_srq", Errno.EINVAL,
                    "the soft device cannot resize an SRQ (no IBV_DEVICE_SRQ_RESIZE); create a bigger one");
        }
        if ((attrMask & LIMIT) != 0) {
            if (srqLimit < 0 || srqLimit > maxWr) {
                throw new RdmaException("ibv_modify_srq", Errno.EINVAL,
                        "srq_limit must be within 0.." + maxWr + ", got " + srqLimit);
            }
            limit.set(srqLimit);
        }
    }

    @Override
    public SrqAttr query() {
        requireOpen();
        return new SrqAttr(maxWr, maxSge, limit.get());
    }

    void addUser() {
        users.incrementAndGet();
    }

    void removeUser() {
        users.decrementAndGet();
    }

    boolean isClosed() {
        return closed;
    }

    void requireOpen() {
        if (closed) {
            throw new IllegalStateException("shared receive queue is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        int n = users.get();
        if (n > 0) {
            throw new RdmaException("ibv_destroy_srq", Errno.EBUSY,
                    n + " QP(s) still use the shared receive queue: destroy them first");
        }
        closed = true;
        pd.removeChild();
        pd.softDevice().events().purge(this);
        pd.softDevice().tracker().closed(this);
    }
}
