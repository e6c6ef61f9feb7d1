package dev.ibex.verbs.provider;

import static dev.ibex.verbs.ffi.constant.IbvQpCreateSendOpsFlags.*;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.verbs.ffi.QpExOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Posts a {@link SendBatch} all or nothing through a QP's {@code ibv_qp_ex}: {@code ibv_wr_start}, per WR
 * {@code qpx->wr_id}/{@code wr_flags}, its builder and setters, then {@code ibv_wr_complete} — which posts every WR
 * or, on any failure (e.g. the send queue has no room for all of them), none. What
 * {@link NativeQueuePair#postSendAll} uses for a QP made by {@code ibv_create_qp_ex} with send-ops flags. Confined to
 * the QP's posting thread; allocates nothing per WR (inline buffer lists go through one reused array).
 */
final class ExtendedPosting {
    private static final long DATA_BUF_SIZE = 16;

    private final QpExOps wr;
    private final QpType type;
    /** {@code struct ibv_data_buf[max_send_sge]} for inline lists. */
    private final MemorySegment dataBufs;
    private final int maxBufs;

    ExtendedPosting(QpExOps wr, QpType type, int maxSge, Arena arena) {
        this.wr = wr;
        this.type = type;
        this.maxBufs = Math.max(1, maxSge);
        this.dataBufs = arena.allocate(maxBufs * DATA_BUF_SIZE, 8);
    }

    /** {@return the {@code IBV_QP_EX_WITH_*} operations a QP of {@code type} is created with (rxe's set per type)} */
    static long sendOpsFlags(QpType type) {
        return switch (type) {
            case RC -> IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND
                    | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP
                    | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV;
            case UC -> IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND
                    | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_SEND_WITH_INV;
            case UD -> IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
            default -> 0;
        };
    }

    /**
     * Whether every WR of the chain can go through {@code ibv_qp_ex} (else the caller posts with post_send). Not
     * inline WRs: on rxe (rdma-core 44, Linux 6.1) an inline RDMA WRITE built with {@code wr_set_inline_data_list}
     * delivered zeros (the VM tier's WrBatchConformance). Not gather lists of unequal lengths: rxe before rdma-core
     * commit 406cd2ad0 sets a {@code wr_set_sge_list} WR's length to {@code num_sge * sge[0].length}.
     */
    boolean handles(SendBatch batch, int count) {
        for (int i = 0; i < count; i++) {
            int op = batch.opcode(i);
            if (!wr.supports(op)) {
                return false;
            }
            if ((batch.flags(i) & SendFlags.INLINE) != 0) {
                return false;
            }
            for (int j = 1, n = batch.numSge(i); j < n; j++) {
                if (batch.sgeLength(i, j) != batch.sgeLength(i, 0)) {
                    return false;
                }
            }
            if (type == QpType.UD && !wr.supportsUdAddr()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Posts WRs 0..count-1 of {@code batch}, all or none.
     *
     * @throws PostException the errno {@code ibv_wr_complete} returned, with failed index 0: nothing was posted
     */
    void post(SendBatch batch, int count) {
        wr.start();
        boolean ended = false;
        try {
            for (int i = 0; i < count; i++) {
                build(batch, i);
            }
            int rc = wr.complete();
            ended = true;
            if (rc != 0) {
                // rxe reports a full send queue as ENOSPC here (ibv_post_send says ENOMEM): the errno is the verb's
                throw new PostException("ibv_wr_complete", rc, 0, rc == Errno.ENOMEM.number()
                        || rc == Errno.ENOSPC.number()
                        ? "the send queue has no room for the whole batch: poll the send CQ; nothing was posted"
                        : "the batch was discarded, nothing was posted");
            }
        } finally {
            if (!ended) {
                wr.abort(); // the provider holds the send queue's lock from start to complete/abort
            }
        }
    }

    private void build(SendBatch b, int i) {
        int op = b.opcode(i);
        int flags = b.flags(i);
        wr.next(b.wrId(i), flags);
        switch (op) {
            case WrOpcode.RDMA_WRITE -> wr.rdmaWrite(b.rkey(i), b.remoteAddr(i));
            case WrOpcode.RDMA_WRITE_WITH_IMM -> wr.rdmaWriteImm(b.rkey(i), b.remoteAddr(i), b.immData(i));
            case WrOpcode.SEND -> wr.send();
            case WrOpcode.SEND_WITH_IMM -> wr.sendImm(b.immData(i));
            case WrOpcode.SEND_WITH_INV -> wr.sendInv(b.invalidateRkey(i));
            case WrOpcode.RDMA_READ -> wr.rdmaRead(b.rkey(i), b.remoteAddr(i));
            case WrOpcode.ATOMIC_CMP_AND_SWP ->
                    wr.atomicCmpSwp(b.atomicRkey(i), b.remoteAddr(i), b.atomicCompareAdd(i), b.atomicSwap(i));
            case WrOpcode.ATOMIC_FETCH_AND_ADD -> wr.atomicFetchAdd(b.atomicRkey(i), b.remoteAddr(i), b.atomicCompareAdd(i));
            case WrOpcode.LOCAL_INV -> {
                wr.localInv(b.invalidateRkey(i));
                return; // no data
            }
            default -> throw new IllegalStateException("not replayable: " + WrOpcode.name(op));
        }
        if (type == QpType.UD) {
            wr.setUdAddr(b.udAh(i), b.udRemoteQpn(i), b.udRemoteQkey(i));
        }
        int n = b.numSge(i);
        if ((flags & SendFlags.INLINE) != 0) {
            for (int j = 0; j < n; j++) {
                dataBufs.set(ValueLayout.JAVA_LONG, j * DATA_BUF_SIZE, b.sgeAddr(i, j));
                dataBufs.set(ValueLayout.JAVA_LONG, j * DATA_BUF_SIZE + 8, Integer.toUnsignedLong(b.sgeLength(i, j)));
            }
            wr.setInlineDataList(n, dataBufs.address());
        } else {
            // the WR's own ibv_sge array, in place
            wr.setSgeList(n, b.segment().get(ValueLayout.JAVA_LONG, (long) i * VerbsAbi.SEND_WR_SIZE
                    + VerbsAbi.SEND_WR_SG_LIST));
        }
    }
}
