package dev.ibex.cm.fake;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a connected RC QP's send WR does at its peer in loopback, at post time: a SEND (or WRITE with immediate)
 * consumes a posted receive of the peer or waits for one (RNR), WRITE and READ check the peer's R_Key and access,
 * atomics also their alignment, and each failure completes the WR with the status a real HCA reports and takes the
 * QP to ERR. A peer that is gone, dead or not ready ends the WR with {@code RETRY_EXC_ERR}. Lock held.
 */
final class RcExecution {
    private final FakeQp qp;

    RcExecution(FakeQp qp) {
        this.qp = qp;
    }

    /** Executes one WR; false when it must wait for a receive (RNR). */
    boolean execute(FakeQp.SendWr wr) {
        PostedSends sends = qp.sends;
        FakeQp to = qp.peer;
        if (to == null || to.closed || sends.peerDead || (to.state != QpState.RTS && to.state != QpState.RTR)) {
            sends.fail(wr, WcStatus.RETRY_EXC_ERR);
            return true;
        }
        switch (wr.opcode()) {
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE_WITH_IMM -> {
                boolean write = wr.opcode() == WrOpcode.RDMA_WRITE_WITH_IMM;
                if (!to.hasRecv()) {
                    return false;
                }
                byte[] data = qp.memory.data(wr);
                if (data == null) {
                    sends.fail(wr, WcStatus.LOC_PROT_ERR);
                    return true;
                }
                if (write && !remoteCopyIn(to, wr, data)) {
                    return true;
                }
                FakeQp.Recv r = to.takeRecv();
                if (!write && !to.memory.scatter(r, data, 0)) {
                    to.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.LOC_LEN_ERR, WcOpcode.RECV, 0, to.qpNum, 0, 0, 0,
                            null, -1));
                    to.flush();
                    sends.fail(wr, WcStatus.REM_INV_REQ_ERR);
                    return true;
                }
                boolean imm = wr.opcode() != WrOpcode.SEND;
                to.recvCq.add(new FakeCq.Cqe(r.wrId(), WcStatus.SUCCESS, write ? WcOpcode.RECV_RDMA_WITH_IMM
                        : WcOpcode.RECV, data.length, to.qpNum, imm ? WcFlags.WITH_IMM : 0, wr.imm(), qp.qpNum, null,
                        -1));
                sends.complete(wr, WcStatus.SUCCESS, false);
            }
            case WrOpcode.RDMA_WRITE -> {
                byte[] data = qp.memory.data(wr);
                if (data == null) {
                    sends.fail(wr, WcStatus.LOC_PROT_ERR);
                } else if (remoteCopyIn(to, wr, data)) {
                    sends.complete(wr, WcStatus.SUCCESS, false);
                }
            }
            case WrOpcode.RDMA_READ -> {
                MemorySegment src = to.memory.remote(wr.remoteAddr(), wr.rkey(), wr.length(), Access.REMOTE_READ);
                if (src == null) {
                    sends.fail(wr, WcStatus.REM_ACCESS_ERR);
                } else if (!qp.memory.scatterLocal(wr, src.toArray(ValueLayout.JAVA_BYTE))) {
                    sends.fail(wr, WcStatus.LOC_PROT_ERR);
                } else {
                    sends.complete(wr, WcStatus.SUCCESS, false);
                }
            }
            case WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD -> atomic(to, wr);
            default -> sends.fail(wr, WcStatus.LOC_QP_OP_ERR);
        }
        return true;
    }

    private void atomic(FakeQp to, FakeQp.SendWr wr) {
        PostedSends sends = qp.sends;
        if ((wr.remoteAddr() & 7) != 0 || wr.length() != 8) {
            sends.fail(wr, WcStatus.REM_INV_REQ_ERR);
            return;
        }
        MemorySegment t = to.memory.remote(wr.remoteAddr(), wr.rkey(), 8, Access.REMOTE_ATOMIC);
        if (t == null) {
            sends.fail(wr, WcStatus.REM_ACCESS_ERR);
            return;
        }
        long old = t.get(ValueLayout.JAVA_LONG, 0);
        long next = wr.opcode() == WrOpcode.ATOMIC_FETCH_AND_ADD ? old + wr.compareAdd()
                : (old == wr.compareAdd() ? wr.swap() : old);
        byte[] result = new byte[8];
        MemorySegment.ofArray(result).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, old);
        if (!qp.memory.scatterLocal(wr, result)) {
            sends.fail(wr, WcStatus.LOC_PROT_ERR);
            return;
        }
        t.set(ValueLayout.JAVA_LONG, 0, next);
        sends.complete(wr, WcStatus.SUCCESS, false);
    }

    private boolean remoteCopyIn(FakeQp to, FakeQp.SendWr wr, byte[] data) {
        if (data.length == 0) {
            return true; // IBA C9-88: a zero-length transfer checks no R_Key (keepalive probes rely on it)
        }
        MemorySegment dst = to.memory.remote(wr.remoteAddr(), wr.rkey(), data.length, Access.REMOTE_WRITE);
        if (dst == null) {
            qp.sends.fail(wr, WcStatus.REM_ACCESS_ERR);
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(data), 0, dst, 0, data.length);
        return true;
    }
}
