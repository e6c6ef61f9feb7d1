package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.wire.Icrc;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.Opcode.Position;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.Padding;
import dev.ibex.softroce.wire.Psn;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The requester (rxe {@code rxe_req.c}): turns send WQEs into request packets. RC messages are segmented at the
 * path MTU with FIRST/MIDDLE/LAST/ONLY opcodes; each packet takes one PSN except an RDMA READ request, which
 * reserves one PSN per response packet. AckReq is set on the last packet of a message and after every 64 packets
 * without one. It stops when 128 PSNs are unacknowledged, when {@code max_rd_atomic} READs/atomics are
 * outstanding, and before a fenced WQE while READs/atomics are outstanding. After a timeout, a PSN-sequence NAK or
 * an RNR wait it goes back to the oldest unacknowledged PSN (go-back-N). BIND_MW and LOCAL_INV are executed here
 * when their turn comes ({@link LocalOps}) and complete in order behind what was posted before them. UD: one packet
 * per message, completed as
 * soon as it is sent; a UD message larger than the MTU is not sent and completes successfully (IBTA C10-93.1.1).
 *
 * <p>Runs only in the QP's send task. Builds packets in its own buffer and sends them from the running thread;
 * allocates nothing.
 */
final class Requester {
    static final int MAX_PKT_PER_ACK = 64;
    static final int MAX_UNACKED_PSNS = 128;

    private final SoftQueuePair qp;
    private final Sender sender;
    private final PacketBuilder builder = new PacketBuilder();
    /**
     * The QP's own packet buffer, made on first use: only a run nested in another on the same thread (whose batch is
     * taken) needs it, so most QPs never hold these 4 KiB (10,000 connections: 40 MB).
     */
    private ByteBuffer txBuffer;
    private MemorySegment tx;
    /** The batch packets are built in during {@link #run}, or null: then {@link #tx}, sent one by one. */
    private SegmentBatch batch;

    int psn;
    /**
     * The highest PSN a response may carry: the last PSN of the newest request sent (a READ's last response PSN).
     * Not lowered by a go-back-N retry, whose earlier transmissions may still be answered.
     */
    int highestPsn;
    /** {@link #highestPsn} for the receive threads, written before the request leaves (see Sender.onResponse). */
    volatile int publishedHighestPsn;
    /** Opcode of the last packet sent, -1 between messages. */
    int opcode = -1;
    /** Position in the send queue of the next WQE to transmit. */
    long wqeIndex;
    int noAckPackets;
    /** READ/atomic slots left of {@code max_rd_atomic}. */
    int rdAtomicFree;
    boolean needRetry;
    boolean waitForRnrTimer;
    boolean waitPsn;
    boolean waitFence;
    boolean needRdAtomic;
    long packetsSent;
    int lastRetryFrom = -1;
    /** Whether the last {@link #run} stopped because it had sent its budget of packets. */
    boolean budgetExhausted;

    Requester(SoftQueuePair qp, Sender sender) {
        this.qp = qp;
        this.sender = sender;
    }

    /** Whether this requester made its own packet buffer (for tests). */
    boolean ownsPacketBuffer() {
        return tx != null;
    }

    /** QP reset (or first RTS): forget every position. */
    void reset(int sqPsn, int maxRdAtomic) {
        psn = sqPsn;
        highestPsn = Psn.add(sqPsn, -1);
        publishedHighestPsn = highestPsn;
        opcode = -1;
        wqeIndex = qp.sq().consumerIndex();
        noAckPackets = 0;
        rdAtomicFree = maxRdAtomic;
        needRetry = false;
        waitForRnrTimer = false;
        waitPsn = false;
        waitFence = false;
        needRdAtomic = false;
    }

    /**
     * Sends what the window allows, at most {@code budget} packets: built into this thread's {@link SegmentBatch}
     * so that runs of them leave in one system call, all sent before this returns.
     *
     * @return whether anything was sent or completed locally
     */
    boolean run(int budget) {
        batch = SegmentBatch.take();
        try {
            return transmit(budget);
        } finally {
            SegmentBatch b = batch;
            batch = null;
            if (b != null) {
                b.release();
            }
        }
    }

    private boolean transmit(int budget) {
        budgetExhausted = false;
        int state = qp.stateCode();
        if (state != QpState.RTS.ordinal() && state != QpState.SQD.ordinal()) {
            return false;
        }
        if (needRetry && !waitForRnrTimer) {
            sender.retries++;
            retry();
            needRetry = false;
        }
        SendQueue sq = qp.sq();
        if (wqeIndex - sq.consumerIndex() < 0) {
            // cumulative ACKs completed WQEs this go-back-N pass had yet to resend: resume after them
            retry();
        }
        boolean rc = qp.type() == QpType.RC;
        boolean progress = false;
        int sent = 0;
        while (wqeIndex != sq.producerIndex()) {
            if (sent == budget) {
                budgetExhausted = true;
                break;
            }
            SendWqe w = sq.at(wqeIndex);
            if (state == QpState.SQD.ordinal() && w.state != SendWqe.PROCESSING) {
                break; // draining: finish the message in flight, start no new one
            }
            if ((w.flags & SendFlags.FENCE) != 0 && rdAtomicFree != qp.maxRdAtomic()) {
                waitFence = true;
                break;
            }
            if (w.isLocal()) {
                if (w.state == SendWqe.POSTED) { // not again when a go-back-N pass walks over it
                    int status = LocalOps.execute(qp, w);
                    w.status = status;
                    w.state = status == 0 ? SendWqe.DONE : SendWqe.ERROR;
                    w.firstPsn = psn;
                    w.lastPsn = psn;
                }
                wqeIndex++;
                progress = true;
                if (w.state == SendWqe.ERROR) {
                    qp.error();
                    return true;
                }
                continue;
            }
            if (rc && Psn.diff(psn, Psn.add(sender.completer.psn, MAX_UNACKED_PSNS)) > 0) {
                waitPsn = true;
                break;
            }
            int mtu = rc ? qp.mtuBytes() : qp.device().activeMtu().bytes();
            Opcode op = nextOpcode(w, mtu);
            boolean readOrAtomic = w.opcode == WrOpcode.RDMA_READ || w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                    || w.opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
            if (readOrAtomic && !takeRdAtomicSlot(w)) {
                break;
            }
            int payload = op.carriesPayload() ? (int) Math.min(w.resid, mtu) : 0;
            if (!rc && w.resid > mtu) {
                // C10-93.1.1: a UD message larger than the MTU is not sent, and that is not an error
                w.firstPsn = psn;
                w.lastPsn = psn;
                psn = Psn.next(psn);
                opcode = -1;
                wqeIndex++;
                w.state = SendWqe.DONE;
                w.status = WcStatus.SUCCESS.code();
                progress = true;
                continue;
            }
            if (!sendPacket(w, op, payload)) {
                w.status = WcStatus.LOC_PROT_ERR.code();
                w.state = SendWqe.ERROR;
                wqeIndex++;
                qp.error();
                return true;
            }
            progress = true;
            sent++;
            boolean end = op.position().isLast();
            // wqe state
            w.state = end ? (rc ? SendWqe.PENDING : SendWqe.DONE) : SendWqe.PROCESSING;
            if (!rc) {
                w.status = WcStatus.SUCCESS.code();
            }
            // psn
            long left = op == Opcode.RC_RDMA_READ_REQUEST ? w.resid : w.resid + payload;
            int packets = (int) Math.max(1, (left + mtu - 1) / mtu);
            if (op.position().isFirst()) {
                w.firstPsn = psn;
                w.lastPsn = Psn.add(psn, packets - 1);
            }
            psn = op == Opcode.RC_RDMA_READ_REQUEST ? Psn.add(w.firstPsn, packets) : Psn.next(psn);
            if (Psn.compare(Psn.add(psn, -1), highestPsn) > 0) {
                highestPsn = Psn.add(psn, -1);
                publishedHighestPsn = highestPsn;
            }
            // requester state
            opcode = end ? -1 : op.code();
            if (end) {
                wqeIndex++;
            }
            if (rc) {
                sender.armRetransmitIfIdle();
            }
        }
        return progress;
    }

    private boolean takeRdAtomicSlot(SendWqe w) {
        if (w.hasRdAtomic) {
            return true;
        }
        if (rdAtomicFree > 0) {
            rdAtomicFree--;
            w.hasRdAtomic = true;
            needRdAtomic = false;
            return true;
        }
        needRdAtomic = true;
        return false;
    }

    void releaseRdAtomicSlot(SendWqe w) {
        if (w.hasRdAtomic) {
            w.hasRdAtomic = false;
            rdAtomicFree++;
            needRdAtomic = false;
        }
    }

    private Opcode nextOpcode(SendWqe w, int mtu) {
        boolean fits = w.resid <= mtu;
        if (qp.type() == QpType.UD) {
            return Opcode.udSend(w.opcode == WrOpcode.SEND_WITH_IMM);
        }
        boolean inSend = opcode == Opcode.RC_SEND_FIRST.code() || opcode == Opcode.RC_SEND_MIDDLE.code();
        boolean inWrite = opcode == Opcode.RC_RDMA_WRITE_FIRST.code() || opcode == Opcode.RC_RDMA_WRITE_MIDDLE.code();
        return switch (w.opcode) {
            case WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.SEND_WITH_INV -> Opcode.rcSend(
                    Position.of(!inSend, fits), w.opcode == WrOpcode.SEND_WITH_IMM,
                    w.opcode == WrOpcode.SEND_WITH_INV);
            case WrOpcode.RDMA_WRITE, WrOpcode.RDMA_WRITE_WITH_IMM -> Opcode.rcWrite(Position.of(!inWrite, fits),
                    w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM);
            case WrOpcode.RDMA_READ -> Opcode.RC_RDMA_READ_REQUEST;
            case WrOpcode.ATOMIC_CMP_AND_SWP -> Opcode.RC_COMPARE_SWAP;
            case WrOpcode.ATOMIC_FETCH_AND_ADD -> Opcode.RC_FETCH_ADD;
            default -> throw new IllegalStateException("opcode " + w.opcode + " passed post-time validation");
        };
    }

    /** Builds and sends one request packet; {@code false} on a local protection error gathering the payload. */
    private boolean sendPacket(SendWqe w, Opcode op, int payload) {
        boolean rc = qp.type() == QpType.RC;
        PathMigration.Paths paths = rc ? qp.paths().current() : null; // route and MigReq from one snapshot
        Route route = rc ? paths.route() : w.ah.route();
        boolean end = op.position().isLast();
        boolean ackReq = false;
        if (rc) {
            noAckPackets++;
            if (end || noAckPackets > MAX_PKT_PER_ACK) {
                ackReq = true;
                noAckPackets = 0;
            }
        }
        boolean solicited = (w.flags & SendFlags.SOLICITED) != 0 && end
                && (op.operation() == Opcode.Operation.SEND || (op.operation() == Opcode.Operation.RDMA_WRITE
                        && op.hasImmDt()));
        int destQp = qp.type() == QpType.UD ? w.remoteQpn : qp.destQpn();
        SegmentBatch b = batch;
        MemorySegment into;
        long at = 0;
        if (b == null) {
            if (tx == null) {
                txBuffer = ByteBuffer.allocateDirect(Sender.MAX_PACKET);
                tx = MemorySegment.ofBuffer(txBuffer);
            }
            into = tx;
        } else {
            into = b.segment();
            at = b.offsetFor(route.link(), route.dstIp(), route.destination(),
                    op.headerLength() + payload + Padding.count(payload) + Icrc.SIZE, end);
        }
        builder.begin(into, at, op).destQp(destQp).psn(psn).ackReq(ackReq).solicitedEvent(solicited)
                .migReq(rc && paths.migReq()); // UD: 0, like rxe (IBA leaves it unused)
        if (op.hasReth()) {
            builder.reth(w.iova, w.rkey, (int) w.resid);
        }
        if (op.hasAtomicEth()) {
            if (op == Opcode.RC_COMPARE_SWAP) {
                builder.atomicEth(w.iova, w.rkey, w.swap, w.compareAdd);
            } else {
                builder.atomicEth(w.iova, w.rkey, w.compareAdd, 0);
            }
        }
        if (op.hasImmDt()) {
            builder.immediate(w.imm);
        }
        if (op.hasIeth()) {
            builder.ieth(w.invalidateRkey);
        }
        if (op.hasDeth()) {
            // IBTA 10.2.5: a WR Q_Key with the high bit set means "use the QP's own Q_Key"
            int qkey = w.remoteQkey < 0 ? qp.qkey() : w.remoteQkey;
            builder.deth(qkey, qp.qpNum());
        }
        if (payload > 0) {
            if (!Dma.gather(qp.device(), qp.softPd(), w, into, builder.payloadOffset(), payload)) {
                builder.payloadLength(0);
                return false;
            }
            builder.payloadLength(payload);
        }
        int port = route.link().port();
        int length = builder.finishIpv4(route.srcIp(), route.dstIp(), port, port);
        if (b != null) {
            b.added(length);
        } else {
            txBuffer.clear().limit(length);
            route.link().send(txBuffer, route.dstIp(), route.destination());
        }
        packetsSent++;
        return true;
    }

    /**
     * Go-back-N (rxe {@code req_retry}): restart from the oldest unacknowledged PSN. The first unacknowledged
     * SEND/WRITE skips the packets already acknowledged; a partly answered READ asks for the rest only. Unlike rxe,
     * the WQEs keep their state and PSN range while they wait to be resent (a resend reuses the same PSNs), so a
     * cumulative ACK that arrives meanwhile — typically the responder acknowledging the duplicates — still
     * completes them, and the requester then skips what was completed.
     */
    void retry() {
        SendQueue sq = qp.sq();
        int compPsn = sender.completer.psn;
        lastRetryFrom = compPsn;
        int mtu = qp.mtuBytes();
        wqeIndex = sq.consumerIndex();
        psn = compPsn;
        opcode = -1;
        boolean first = true;
        for (long i = wqeIndex; i != sq.producerIndex(); i++) {
            SendWqe w = sq.at(i);
            if (w.state == SendWqe.POSTED) {
                break;
            }
            if (w.state == SendWqe.DONE) {
                continue;
            }
            boolean read = w.opcode == WrOpcode.RDMA_READ;
            boolean writeOrSend = w.opcode == WrOpcode.SEND || w.opcode == WrOpcode.SEND_WITH_IMM
                    || w.opcode == WrOpcode.SEND_WITH_INV || w.opcode == WrOpcode.RDMA_WRITE
                    || w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM;
            w.iova = w.remoteAddr;
            if (!first || !read) {
                w.rewind();
            }
            if (first) {
                first = false;
                if (writeOrSend) {
                    int acked = Psn.diff(compPsn, w.firstPsn);
                    for (int k = 0; k < acked && w.resid > 0; k++) {
                        long n = Math.min(w.resid, mtu);
                        opcode = nextOpcode(w, mtu).code();
                        Dma.skip(w, n);
                    }
                }
                if (read) {
                    long received = w.length - w.resid;
                    w.iova += (received / mtu) * mtu;
                }
            }
        }
    }
}
