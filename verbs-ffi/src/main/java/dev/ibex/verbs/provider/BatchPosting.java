package dev.ibex.verbs.provider;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.verbs.ffi.ContextOps;
import dev.ibex.verbs.ffi.RdmaErrors;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The data path: the SPI batches are already arrays of {@code ibv_send_wr}/{@code ibv_recv_wr}/{@code ibv_wc},
 * so a post chains WRs 0..n-1 ({@code link}) and hands WR 0 to the provider's {@code post_send}/
 * {@code post_recv}/{@code post_srq_recv} in one call, and a poll lets {@code poll_cq} write straight into the
 * completion array. Nothing is copied and nothing is allocated unless a post fails.
 *
 * <p>{@code badWr} is the caller's 8-byte slot for the {@code bad_wr} out-pointer; it is cleared before each
 * post so that a failure without a {@code bad_wr} reports WR 0.
 */
final class BatchPosting {
    private BatchPosting() {
    }

    static void postSend(ContextOps ops, MemorySegment qp, SendBatch batch, int count, MemorySegment badWr) {
        batch.link(count);
        badWr.set(ValueLayout.JAVA_LONG, 0, 0L);
        int rc = ops.postSend(qp, batch.segment(), badWr);
        if (rc != 0) {
            throw failed("ibv_post_send", rc, batch.indexOf(bad(badWr, batch.segment())));
        }
    }

    static void postRecv(ContextOps ops, MemorySegment qp, RecvBatch batch, int count, MemorySegment badWr) {
        batch.link(count);
        badWr.set(ValueLayout.JAVA_LONG, 0, 0L);
        int rc = ops.postRecv(qp, batch.segment(), badWr);
        if (rc != 0) {
            throw failed("ibv_post_recv", rc, batch.indexOf(bad(badWr, batch.segment())));
        }
    }

    static void postSrqRecv(ContextOps ops, MemorySegment srq, RecvBatch batch, int count, MemorySegment badWr) {
        batch.link(count);
        badWr.set(ValueLayout.JAVA_LONG, 0, 0L);
        int rc = ops.postSrqRecv(srq, batch.segment(), badWr);
        if (rc != 0) {
            throw failed("ibv_post_srq_recv", rc, batch.indexOf(bad(badWr, batch.segment())));
        }
    }

    /** {@code ibv_poll_cq} into the whole batch; the number of completions written. */
    static int poll(ContextOps ops, MemorySegment cq, CompletionBatch batch) {
        int n = ops.pollCq(cq, batch.capacity(), batch.segment());
        if (n < 0) {
            throw new RdmaException("ibv_poll_cq", -n, "the CQ is in error (overrun or device failure): "
                    + "recreate it and its QPs");
        }
        return n;
    }

    static void requestNotify(ContextOps ops, MemorySegment cq, boolean solicitedOnly) {
        int rc = ops.reqNotifyCq(cq, solicitedOnly);
        if (rc != 0) {
            RdmaErrors.check("ibv_req_notify_cq", rc);
        }
    }

    /** The address the provider stored in {@code bad_wr}, or WR 0 when it stored none. */
    private static long bad(MemorySegment badWr, MemorySegment first) {
        long a = badWr.get(ValueLayout.JAVA_LONG, 0);
        return a == 0 ? first.address() : a;
    }

    private static PostException failed(String verb, int rc, int index) {
        int errno = rc == -1 ? 0 : Math.abs(rc);
        return new PostException(verb, errno, index, RdmaErrors.advice(verb, errno));
    }
}
