package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.SrqOpsBatch;
import dev.ibex.cm.spi.TagMatchingSrq;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;

/**
 * {@code ibv_srq} of type {@code IBV_SRQT_TM} in software: the ordinary receives of {@link SoftSharedReceiveQueue}
 * plus a {@link TagList}. List operations run at once inside {@link #postSrqOps} (nothing stays outstanding, so
 * {@code max_ops} bounds one call); the receive side of every RC QP on the SRQ asks a {@link TagMatcher} where each
 * incoming SEND goes. All completions go to {@link #cq()}.
 *
 * <p>Rendezvous is not offloaded: a rendezvous request that matches a tag completes that buffer with
 * {@link WcStatus#TM_RNDV_INCOMPLETE} and the TMH and RVH scattered into it — what {@code tag_matching.md} says a
 * device does when it cannot finish the transfer — and software does the RDMA READ and sends the FIN.
 *
 * <p>Threading: posting (receives and list operations) is confined to one thread; the matching list is guarded by
 * this SRQ's list monitor, which the QPs' receive tasks take once per incoming message.
 */
public final class SoftTagMatchingSrq extends SoftSharedReceiveQueue implements TagMatchingSrq {
    /** What the soft device reports in {@code tm_caps}: RC, 64-byte rendezvous headers, 4096 tags, 256 operations. */
    static final TmCaps CAPS = new TmCaps(64, 4096, TmCaps.CAP_RC, 256, 4);
    private static final String VERB = "ibv_post_srq_ops";

    private final SoftCompletionQueue cq;
    private final TagList tags;
    private final int maxNumTags;
    private final int maxOps;

    SoftTagMatchingSrq(SoftProtectionDomain pd, SoftCompletionQueue cq, int maxWr, int maxSge, int maxNumTags,
            int maxOps) {
        super(pd, checked(pd, cq, maxWr, maxNumTags, maxOps), maxSge, 0);
        this.cq = cq;
        this.maxNumTags = maxNumTags;
        this.maxOps = maxOps;
        this.tags = new TagList(maxNumTags, CAPS.maxSge());
        if (!cq.attachSrq()) {
            super.close();
            throw new IllegalStateException("completion queue is closed");
        }
    }

    /** Checks the TM sizes before the SRQ is built (and counted); returns {@code maxWr} for the super call. */
    private static int checked(SoftProtectionDomain pd, SoftCompletionQueue cq, int maxWr, int maxNumTags,
            int maxOps) {
        if (cq == null || cq.device() != pd.softDevice()) {
            throw new RdmaException("ibv_create_srq_ex", Errno.EINVAL,
                    "a tag-matching SRQ needs a CQ of the same device for its completions");
        }
        if (maxNumTags <= 0 || maxNumTags > CAPS.maxNumTags() || maxOps <= 0 || maxOps > CAPS.maxOps()) {
            throw new RdmaException("ibv_create_srq_ex", Errno.EINVAL, "tm_cap needs 1 <= max_num_tags <= "
                    + CAPS.maxNumTags() + " and 1 <= max_ops <= " + CAPS.maxOps() + ", got " + maxNumTags + ", "
                    + maxOps);
        }
        return maxWr;
    }

    @Override
    public CompletionQueue cq() {
        return cq;
    }

    SoftCompletionQueue softCq() {
        return cq;
    }

    /** The matching list; its monitor guards it. */
    TagList tags() {
        return tags;
    }

    @Override
    public int maxNumTags() {
        return maxNumTags;
    }

    @Override
    public int maxOps() {
        return maxOps;
    }

    /** {@code ibv_destroy_srq}: EBUSY while QPs use it; afterwards its CQ can be destroyed. */
    @Override
    public synchronized void close() {
        boolean open = !isClosed();
        super.close();
        if (open) {
            cq.detachSrq();
        }
    }

    @Override
    public void postSrqOps(SrqOpsBatch batch, int count) {
        requireOpen();
        if (count < 0 || count > batch.capacity()) {
            throw new IllegalArgumentException("count must be within 0.." + batch.capacity() + ", got " + count);
        }
        if (count > maxOps) {
            throw new PostException(VERB, Errno.ENOMEM.number(), 0, count + " operations in one call, the SRQ's "
                    + "max_ops is " + maxOps);
        }
        synchronized (tags) {
            for (int i = 0; i < count; i++) {
                execute(batch, i);
            }
        }
    }

    /** One operation: every check first, so a refused operation changes nothing. */
    private void execute(SrqOpsBatch batch, int i) {
        int op = batch.opcode(i);
        int flags = batch.flags(i);
        if ((flags & ~(SrqOpsBatch.SIGNALED | SrqOpsBatch.TM_SYNC)) != 0) {
            throw refused(Errno.EINVAL, i, "unknown flags 0x" + Integer.toHexString(flags));
        }
        boolean sync = (flags & SrqOpsBatch.TM_SYNC) != 0;
        int wcOpcode;
        switch (op) {
            case SrqOpsBatch.TAG_ADD -> {
                int n = batch.numSge(i);
                if (n < 0 || n > CAPS.maxSge() || n > batch.maxSge()) {
                    throw refused(Errno.EINVAL, i, "the tagged buffer has " + n + " scatter entries, tm_caps.max_sge is "
                            + CAPS.maxSge());
                }
                if (tags.size() >= maxNumTags) {
                    throw refused(Errno.ENOMEM, i, "the matching list is full (" + maxNumTags + " tags)");
                }
                wcOpcode = WcOpcode.TM_ADD;
            }
            case SrqOpsBatch.TAG_DEL -> {
                if (!tags.isHandle(batch.handle(i))) {
                    throw refused(Errno.EINVAL, i, "handle 0x" + Integer.toHexString(batch.handle(i))
                            + " was never given out by this SRQ");
                }
                wcOpcode = WcOpcode.TM_DEL;
            }
            case SrqOpsBatch.TAG_SYNC -> wcOpcode = WcOpcode.TM_SYNC;
            default -> throw refused(Errno.EINVAL, i, "unknown opcode " + op + " (TAG_ADD 0, TAG_DEL 1, TAG_SYNC 2)");
        }
        if (sync && !tags.report(batch.unexpectedCnt(i))) {
            throw refused(Errno.EINVAL, i, "it reports " + Integer.toUnsignedString(batch.unexpectedCnt(i))
                    + " unexpected messages handled, the SRQ delivered " + Integer.toUnsignedString(tags.unexpected()));
        }
        WcStatus status = WcStatus.SUCCESS;
        if (op == SrqOpsBatch.TAG_ADD) {
            batch.handle(i, tags.add(batch, i, batch.numSge(i)));
        } else if (op == SrqOpsBatch.TAG_DEL && !tags.remove(batch.handle(i))) {
            status = WcStatus.TM_ERR; // a message consumed the buffer first
        }
        if ((flags & SrqOpsBatch.SIGNALED) != 0 || status != WcStatus.SUCCESS) {
            cq.complete(batch.wrId(i), status.code(), wcOpcode, 0, 0, tags.inSync() ? 0 : WcFlags.TM_SYNC_REQ, 0, 0,
                    false);
        }
    }

    private static PostException refused(Errno errno, int i, String why) {
        return new PostException(VERB, errno.number(), i, why);
    }
}
