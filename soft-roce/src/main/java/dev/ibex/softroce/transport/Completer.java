package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RnrTimer;
import dev.ibex.softroce.wire.RocePacket;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The completer (rxe {@code rxe_comp.c}): matches responses to the oldest outstanding send WQEs and completes them.
 * ACKs are cumulative and a READ response implicitly acknowledges every earlier PSN; a response past a pending
 * READ/atomic means its response was lost and triggers a retry. NAKs map to work-completion statuses (invalid
 * request → {@code REM_INV_REQ_ERR}, remote access → {@code REM_ACCESS_ERR}, remote operational →
 * {@code REM_OP_ERR}); a PSN-sequence NAK and the retransmit timer retry up to {@code retry_cnt} times
 * ({@code RETRY_EXC_ERR} after), an RNR NAK waits its timer and retries up to {@code rnr_retry} times (7 =
 * forever; {@code RNR_RETRY_EXC_ERR} after); the retransmit timer is stopped during an RNR wait, which uses up no
 * {@code retry_cnt}, and restarts with the resend. An error completion moves the QP to ERR; the rest is flushed.
 *
 * <p>Runs only in the QP's send task; allocates nothing.
 */
final class Completer {
    // states of the per-response machine (rxe's comp_state)
    private static final int GET_WQE = 0;
    private static final int CHECK_PSN = 1;
    private static final int CHECK_ACK = 2;
    private static final int READ = 3;
    private static final int ATOMIC = 4;
    private static final int WRITE_SEND = 5;
    private static final int COMP_ACK = 6;
    private static final int COMP_WQE = 7;
    private static final int UPDATE_COMP = 8;
    private static final int DONE = 9;
    private static final int EXIT = 10;
    private static final int ERROR_RETRY = 11;
    private static final int RNR_RETRY = 12;
    private static final int ERROR = 13;

    private final SoftQueuePair qp;
    private final Sender sender;
    private final MemorySegment atomicScratch = MemorySegment.ofArray(new long[1]);

    /** Oldest PSN not yet acknowledged. */
    int psn;
    /** Opcode of the last READ response of a message in progress, -1 otherwise. */
    int opcode = -1;
    int retryCount;
    /** {@link PathMigration.Paths#migrations()} when {@link #retryCount} was last reset. */
    private long retryMigrations;
    int rnrRetryCount;
    boolean startedRetry;
    private boolean timeoutRetry;

    Completer(SoftQueuePair qp, Sender sender) {
        this.qp = qp;
        this.sender = sender;
    }

    void reset(int sqPsn) {
        psn = sqPsn;
        opcode = -1;
        resetRetryCounters();
    }

    private void resetRetryCounters() {
        retryCount = qp.retryCnt();
        retryMigrations = qp.paths().current().migrations();
        rnrRetryCount = qp.rnrRetry();
        startedRetry = false;
    }

    /**
     * Processes one response packet.
     *
     * @return whether it changed anything
     */
    long seen;
    int lastSeenPsn = -1;
    int lastSeenOpcode = -1;
    long decrements;
    long migrations;

    /** Responses dropped because their PSN lies ahead of every request sent. */
    long invalidPsn;
    /** RNR NAKs received (the peer had no receive posted); the send task writes it, metrics read it racily. */
    long rnrNaks;

    void onResponse(RocePacket pkt) {
        if (Psn.compare(pkt.psn(), sender.requester.highestPsn) > 0) {
            // the IBA accepts a response only for a PSN that was sent (IBTA 9.7.5.1). Taking it as an implicit
            // acknowledgement (rxe does) would complete sends the peer never received: one forged ACK would then
            // lose up to a window of messages. Drop it and count it.
            invalidPsn++;
            return;
        }
        timeoutRetry = false;
        seen++;
        lastSeenPsn = pkt.psn();
        lastSeenOpcode = pkt.opcode().code() << 8 | (pkt.opcode().hasAeth() ? pkt.aethSyndrome() : 0);
        run(pkt);
        sender.resetRetransmitTimer(); // a response on the path: the peer is alive, push the deadline (rxe)
    }

    /** Completes WQEs that need no response and acts on an expired retransmit timer. */
    void onIdle(boolean timedOut) {
        timeoutRetry = timedOut;
        while (run(null) == DONE) {
            // a retry was started; go round once more to settle the timer
        }
    }

    /** One pass of the machine; returns DONE (call again) or EXIT. */
    private int run(RocePacket pkt) {
        SendQueue sq = qp.sq();
        SendWqe wqe = null;
        int state = GET_WQE;
        for (;;) {
            switch (state) {
                case GET_WQE -> {
                    wqe = null;
                    long c = sq.consumerIndex();
                    if (c == sq.producerIndex()) {
                        state = pkt != null ? DONE : EXIT;
                        break;
                    }
                    wqe = sq.at(c);
                    if (wqe.state == SendWqe.POSTED) {
                        state = pkt != null ? DONE : EXIT;
                    } else if (wqe.state == SendWqe.DONE) {
                        state = COMP_WQE;
                    } else if (wqe.state == SendWqe.ERROR) {
                        state = ERROR;
                    } else {
                        state = pkt != null ? CHECK_PSN : EXIT;
                    }
                }
                case CHECK_PSN -> state = checkPsn(pkt, wqe);
                case CHECK_ACK -> state = checkAck(pkt, wqe);
                case READ -> {
                    int n = pkt.payloadLength();
                    if (!Dma.scatterIntoSend(qp.device(), qp.softPd(), wqe, pkt.segment(), pkt.payloadOffset(), n)) {
                        wqe.status = WcStatus.LOC_PROT_ERR.code();
                        state = ERROR;
                    } else if (wqe.resid == 0 && pkt.opcode().position().isLast()) {
                        state = COMP_ACK;
                    } else {
                        state = UPDATE_COMP;
                    }
                }
                case ATOMIC -> {
                    atomicScratch.set(ValueLayout.JAVA_LONG, 0, pkt.atomicAckOriginalData());
                    if (!Dma.scatterIntoSend(qp.device(), qp.softPd(), wqe, atomicScratch, 0, 8)) {
                        wqe.status = WcStatus.LOC_PROT_ERR.code();
                        state = ERROR;
                    } else {
                        state = COMP_ACK;
                    }
                }
                case WRITE_SEND -> state = plainAckReachesReadOrAtomic(pkt, wqe) ? ERROR_RETRY
                        : wqe.state == SendWqe.PENDING && wqe.lastPsn == pkt.psn() ? COMP_ACK : UPDATE_COMP;
                case COMP_ACK -> {
                    sender.requester.releaseRdAtomicSlot(wqe);
                    complete(wqe);
                    state = Psn.compare(pkt.psn(), psn) >= 0 ? UPDATE_COMP : DONE;
                }
                case COMP_WQE -> {
                    if (pkt != null && wqe.state == SendWqe.PENDING) {
                        if (Psn.compare(wqe.lastPsn, psn) >= 0) {
                            psn = Psn.next(wqe.lastPsn);
                            opcode = -1;
                        }
                        sender.requester.waitPsn = false;
                    }
                    complete(wqe);
                    state = GET_WQE;
                }
                case UPDATE_COMP -> {
                    if (Psn.compare(pkt.psn(), psn) >= 0) {
                        opcode = pkt.opcode().position().isLast() ? -1 : pkt.opcode().code();
                        psn = Psn.next(pkt.psn());
                    }
                    // else a stale response (an ACK folded while the task was busy is processed after the READ
                    // responses queued with it): it must not end the READ response sequence in progress
                    sender.requester.waitPsn = false;
                    state = DONE;
                }
                case DONE -> {
                    return DONE;
                }
                case EXIT -> {
                    if (timeoutRetry && wqe != null) {
                        state = ERROR_RETRY;
                        break;
                    }
                    if (pkt != null || Psn.compare(sender.requester.psn, psn) <= 0) {
                        sender.resetRetransmitTimer(); // a response, or nothing outstanding (then it stops)
                    } else {
                        // a pass without a response (new work posted, a local completion) must not push the
                        // deadline: a sender that keeps posting to a dead peer would never time out
                        sender.armRetransmitIfIdle();
                    }
                    return EXIT;
                }
                case ERROR_RETRY -> {
                    if (wqe == null || wqe.state == SendWqe.POSTED) {
                        return EXIT;
                    }
                    if (startedRetry && !timeoutRetry) {
                        return EXIT; // a retry is already under way
                    }
                    timeoutRetry = false;
                    if (retryCount == 0) {
                        // the QP migrated during this retry cycle (the peer's MigReq = 1, or a forced migration):
                        // these retries were spent on the dead path (rdmavt fails here); or it is ARMED and migrates
                        // now instead of failing (rdmavt restart_rc). Either way the new primary gets a full count,
                        // from the oldest unacknowledged PSN
                        PathMigration.Exhausted x = qp.paths().retriesExhausted(retryMigrations);
                        if (x == PathMigration.Exhausted.MIGRATED
                                || x == PathMigration.Exhausted.MIGRATED_MEANWHILE) {
                            if (x == PathMigration.Exhausted.MIGRATED) {
                                migrations++;
                            }
                            retryCount = qp.retryCnt();
                            retryMigrations = qp.paths().current().migrations();
                            sender.requester.needRetry = true;
                            startedRetry = true;
                            return DONE;
                        }
                    }
                    if (retryCount > 0) {
                        if (!(retryCount == 7 && sender.retrySevenIsInfinite())) {
                            retryCount--;
                            decrements++;
                        }
                        if (Psn.compare(sender.requester.psn, psn) > 0) {
                            sender.requester.needRetry = true;
                            startedRetry = true;
                        }
                        return DONE;
                    }
                    wqe.status = WcStatus.RETRY_EXC_ERR.code();
                    state = ERROR;
                }
                case RNR_RETRY -> {
                    if (rnrRetryCount > 0) {
                        if (rnrRetryCount != 7) {
                            rnrRetryCount--;
                        }
                        sender.requester.waitForRnrTimer = true;
                        sender.armRnrTimer(RnrTimer.nanos(Aeth.rnrTimerCode(pkt.aethSyndrome())));
                        return EXIT;
                    }
                    wqe.status = WcStatus.RNR_RETRY_EXC_ERR.code();
                    state = ERROR;
                }
                case ERROR -> {
                    wqe.state = SendWqe.ERROR;
                    // ERR first: whoever polls the error completion must find the QP in ERR (the flush that
                    // follows runs later in this same send task, so the error still completes before it)
                    qp.error();
                    complete(wqe);
                    return EXIT;
                }
                default -> throw new IllegalStateException("completer state " + state);
            }
        }
    }

    private int checkPsn(RocePacket pkt, SendWqe wqe) {
        int p = pkt.psn();
        if (Psn.compare(p, wqe.lastPsn) > 0) {
            // the response is past this WQE: a SEND/WRITE is implicitly acknowledged, a READ/atomic lost its
            // response
            if (wqe.state == SendWqe.PENDING) {
                if (isReadOrAtomic(wqe)) {
                    return ERROR_RETRY;
                }
                resetRetryCounters();
                return COMP_WQE;
            }
            return DONE;
        }
        int diff = Psn.compare(p, psn);
        if (diff < 0) {
            // most likely a retried response: complete the WQE if it matches, else ignore it. (rxe also runs an
            // old ACK that arrives inside a READ response through the ACK checks; that resets the READ's
            // sequence and fails the READ's next response with a bad-response error: one duplicate or forged ACK
            // would end the connection. An acknowledgement of what is already acknowledged changes nothing.)
            if (p == wqe.lastPsn) {
                return pkt.opcode() == Opcode.RC_ACKNOWLEDGE && isReadOrAtomic(wqe) ? DONE : COMP_ACK;
            }
            return DONE;
        }
        if (diff > 0 && isReadOrAtomic(wqe)) {
            return DONE;
        }
        return CHECK_ACK;
    }

    private int checkAck(RocePacket pkt, SendWqe wqe) {
        Opcode op = pkt.opcode();
        // sequence of READ response packets
        if (opcode == -1) {
            if (!op.position().isFirst()) {
                return badResponse(wqe);
            }
        } else if (op != Opcode.RC_ACKNOWLEDGE && op != Opcode.RC_RDMA_READ_RESPONSE_MIDDLE
                && op != Opcode.RC_RDMA_READ_RESPONSE_LAST) {
            // a retried read may restart with FIRST (or ONLY) at the WQE's first PSN
            boolean restart = (pkt.psn() == wqe.firstPsn && op == Opcode.RC_RDMA_READ_RESPONSE_FIRST)
                    || (wqe.firstPsn == wqe.lastPsn && op == Opcode.RC_RDMA_READ_RESPONSE_ONLY);
            if (!restart) {
                return badResponse(wqe);
            }
        }
        switch (op) {
            case RC_RDMA_READ_RESPONSE_FIRST, RC_RDMA_READ_RESPONSE_LAST, RC_RDMA_READ_RESPONSE_ONLY,
                    RC_RDMA_READ_RESPONSE_MIDDLE -> {
                if (op != Opcode.RC_RDMA_READ_RESPONSE_MIDDLE
                        && Aeth.type(pkt.aethSyndrome()) != Aeth.Type.ACK) {
                    return badResponse(wqe);
                }
                if (wqe.opcode != WrOpcode.RDMA_READ) {
                    return badResponse(wqe);
                }
                resetRetryCounters();
                return READ;
            }
            case RC_ATOMIC_ACKNOWLEDGE -> {
                if (Aeth.type(pkt.aethSyndrome()) != Aeth.Type.ACK || (wqe.opcode != WrOpcode.ATOMIC_CMP_AND_SWP
                        && wqe.opcode != WrOpcode.ATOMIC_FETCH_AND_ADD)) {
                    return badResponse(wqe);
                }
                resetRetryCounters();
                return ATOMIC;
            }
            case RC_ACKNOWLEDGE -> {
                int syn = pkt.aethSyndrome();
                switch (Aeth.type(syn)) {
                    case ACK -> {
                        resetRetryCounters();
                        return WRITE_SEND;
                    }
                    case RNR_NAK -> {
                        rnrNaks++;
                        return RNR_RETRY;
                    }
                    case NAK -> {
                        Aeth.NakCode code = Aeth.nakCode(syn);
                        if (code == Aeth.NakCode.PSN_SEQUENCE_ERROR) {
                            // a NAK implicitly acknowledges every PSN before it
                            if (Psn.compare(pkt.psn(), psn) > 0) {
                                psn = pkt.psn();
                                sender.requester.waitPsn = false;
                            }
                            return ERROR_RETRY;
                        }
                        wqe.status = code == Aeth.NakCode.INVALID_REQUEST ? WcStatus.REM_INV_REQ_ERR.code()
                                : code == Aeth.NakCode.REMOTE_ACCESS_ERROR ? WcStatus.REM_ACCESS_ERR.code()
                                        : WcStatus.REM_OP_ERR.code();
                        return ERROR;
                    }
                    default -> {
                        return badResponse(wqe);
                    }
                }
            }
            default -> {
                return badResponse(wqe);
            }
        }
    }

    /** An unexpected response opcode: rxe reports FATAL_ERR, IBTA BAD_RESP_ERR; we follow IBTA. */
    private static int badResponse(SendWqe wqe) {
        wqe.status = WcStatus.BAD_RESP_ERR.code();
        return ERROR;
    }

    /**
     * A plain ACK at or past a pending READ/atomic's PSN names it without its data (rdmavt {@code do_rc_ack}: "only
     * a RDMA_READ_LAST or ONLY can ACK a RDMA read and likewise for atomic ops"): typically the responder's C9-105
     * ACK of a duplicate SEND/WRITE that it executed before the READ/atomic whose response was lost (a burst of
     * loss, a path migration). The request must be retried for its response, never completed by this ACK.
     */
    private static boolean plainAckReachesReadOrAtomic(RocePacket pkt, SendWqe wqe) {
        return wqe.state == SendWqe.PENDING && isReadOrAtomic(wqe) && Psn.compare(pkt.psn(), wqe.firstPsn) >= 0;
    }

    private static boolean isReadOrAtomic(SendWqe w) {
        return w.opcode == WrOpcode.RDMA_READ || w.opcode == WrOpcode.ATOMIC_CMP_AND_SWP
                || w.opcode == WrOpcode.ATOMIC_FETCH_AND_ADD;
    }

    /**
     * Posts the WQE's completion when it is signalled (or failed — an error always completes, IBTA 10.7.3.1) and
     * frees its slot.
     */
    private void complete(SendWqe w) {
        boolean post = qp.signalAll() || w.isSignaled() || w.status != 0;
        long wrId = w.wrId;
        int status = w.status;
        int wcOpcode = WrOpcode.completionOpcode(w.opcode);
        int flags = w.opcode == WrOpcode.RDMA_WRITE_WITH_IMM || w.opcode == WrOpcode.SEND_WITH_IMM
                ? WcFlags.WITH_IMM : 0;
        int byteLen = (int) w.length;
        w.state = SendWqe.POSTED;
        qp.sq().advanceConsumer();
        if (post) {
            SoftCompletionQueue cq = qp.sendCqSoft();
            if (status == 0) {
                cq.complete(wrId, 0, wcOpcode, byteLen, qp.qpNum(), flags, 0, 0, false);
            } else {
                cq.complete(wrId, status, wcOpcode, 0, qp.qpNum(), 0, 0, 0, false);
            }
        }
        sender.requester.waitFence = false;
        sender.checkDrained();
    }

    /** Completes every WQE still queued with WR_FLUSH_ERR (QP in ERR). */
    boolean flush() {
        SendQueue sq = qp.sq();
        boolean any = false;
        SoftCompletionQueue cq = qp.sendCqSoft();
        while (sq.consumerIndex() != sq.producerIndex()) {
            SendWqe w = sq.at(sq.consumerIndex());
            long wrId = w.wrId;
            int wcOpcode = WrOpcode.completionOpcode(w.opcode);
            w.state = SendWqe.POSTED;
            w.hasRdAtomic = false;
            sq.advanceConsumer();
            cq.complete(wrId, WcStatus.WR_FLUSH_ERR.code(), wcOpcode, 0, qp.qpNum(), 0, 0, 0, false);
            any = true;
        }
        sender.requester.wqeIndex = sq.consumerIndex();
        return any;
    }

    /** Whether every message sent has been acknowledged. */
    boolean allAcked() {
        return qp.type() != QpType.RC || Psn.compare(sender.requester.psn, psn) <= 0;
    }
}
