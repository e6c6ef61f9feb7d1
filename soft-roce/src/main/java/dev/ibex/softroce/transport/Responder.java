package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.Opcode.Operation;
import dev.ibex.softroce.wire.PacketBuilder;
import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RocePacket;

/**
 * The responder (rxe {@code rxe_resp.c}): executes the requests that arrive for a QP and answers them.
 *
 * <p>RC: a request past the expected PSN gets one PSN-sequence NAK per gap and is dropped; an older one is a
 * duplicate — a SEND/WRITE is acknowledged again, a READ or atomic is answered again from the ring of
 * {@code max_dest_rd_atomic} responder resources (an atomic is never executed twice). A SEND or WRITE_WITH_IMM
 * with no receive posted gets an RNR NAK carrying {@code min_rnr_timer}. R_Key, bounds and access violations get
 * NAK remote-access-error (0x62), bad lengths, opcode sequences and misaligned atomics NAK invalid-request (0x61);
 * both move the QP to ERR (IBTA class C). A receive buffer too small completes the receive with
 * {@code LOC_LEN_ERR}. ACKs carry the MSN and are sent when the request asked (AckReq); atomics and READs are
 * always answered.
 *
 * <p>UD: Q_Key check (mismatch dropped), the 40-byte GRH written at the start of the receive buffer (20 zero bytes
 * and the IPv4 header, as rxe and {@code ibv_init_ah_from_wc} expect), no receive posted → dropped.
 *
 * <p>This class keeps the RC protocol (PSN, opcode sequence, execution, ACKs, READ replies); the parts it uses are
 * {@link RequestChecks}, {@link ResponderReceive} (the receive WQE in hand), {@link ResponderMemory} (what WRITEs,
 * READs and atomics do to memory), {@link ResponderResources} (duplicate READs and atomics), {@link ResponsePackets}
 * (what it sends back) and {@link UdReceive} (the UD path).
 *
 * <p>Runs in the QP's receive task, normally on the receive thread in place; allocates nothing.
 */
public final class Responder {
    private static final int ACK_UNLIMITED = ResponsePackets.ACK_UNLIMITED;

    private final SoftQueuePair qp;
    private final SerialTask task;
    private final PacketInbox inbox = new PacketInbox(16, Sender.MAX_PACKET);
    private final RocePacket queued = new RocePacket();
    /** ACKs, NAKs, atomic ACKs and READ responses. */
    private final ResponsePackets packets;
    /** The receive WQE a message fills. */
    private final ResponderReceive receive;
    /** The UD path (a UD QP's every request). */
    private final UdReceive ud;
    /** The WRITEs, READs and atomics into this side's memory. */
    private final ResponderMemory memory;

    /** Next expected PSN. */
    private int psn;
    /** The ACK noted in the polling thread's {@link AckDeferral} and not sent yet. */
    private final NotedAck noted = new NotedAck();
    /** PSN after the last request acknowledged (duplicates of SEND/WRITE are acked with ackPsn - 1). */
    private int ackPsn;
    private int msn;
    private int opcode = -1;
    private boolean sentPsnNak;
    /** The READs and atomics executed, for answering their duplicates. */
    private final ResponderResources resources = new ResponderResources();
    private boolean commEstRaised;
    private long handled;
    private long duplicates;
    private long outOfSequence;
    private long rnrNaksSent;

    /** READ response packets a receive thread sends before it hands the rest to the work queue. */
    static final int RECEIVE_THREAD_BUDGET = 32;

    private final WorkQueue work;
    /** A READ reply that is still being sent (by the work queue), or null; later requests wait behind it. */
    private ResponderResource pendingRead;

    public Responder(SoftQueuePair qp, WorkQueue work) {
        this.qp = qp;
        this.work = work;
        this.task = new SerialTask("receive task of QP 0x" + Integer.toHexString(qp.qpNum()), this::body);
        this.receive = new ResponderReceive(qp);
        this.packets = new ResponsePackets(qp);
        this.memory = new ResponderMemory(qp);
        this.ud = new UdReceive(qp, receive, this::markEstablished);
    }

    public SerialTask task() {
        return task;
    }

    /** The PSN expected of the next request (a racy snapshot from another thread). */
    public int expectedPsn() {
        return psn;
    }

    /** Resets for a QP entering RTR (or RESET). Inside the task. */
    public void reset(int rqPsn, int maxDestRdAtomic) {
        psn = rqPsn;
        ackPsn = rqPsn;
        msn = 0;
        opcode = -1;
        sentPsnNak = false;
        receive.reset();
        resources.reset(maxDestRdAtomic);
        commEstRaised = false;
        pendingRead = null;
        inbox.clear();
    }

    /**
     * A request packet for this QP arrived (receive thread): executed in place when the task is idle; a long READ
     * reply continues on the work queue.
     */
    public void onRequest(RocePacket pkt, int srcIp, int dstIp) {
        if (!task.tryEnter()) {
            if (inbox.offer(pkt.segment(), pkt.offset(), pkt.length(), srcIp, dstIp)) {
                if (!task.nudge()) {
                    work.defer(task);
                }
                return;
            }
            // the inbox is full: wait for the task (its owner drains the inbox), then process in place
            while (!task.tryEnter()) {
                Thread.onSpinWait();
            }
        }
        try {
            if (isReceiving(qp.stateCode())) {
                drainInbox();
                if (pendingRead == null) {
                    handle(pkt, srcIp, dstIp);
                } else if (!inbox.offer(pkt.segment(), pkt.offset(), pkt.length(), srcIp, dstIp)) {
                    // behind a long READ reply and no room: finish the reply here, then this request
                    ResponderResource res = pendingRead;
                    pendingRead = null;
                    finishRead(res);
                    drainInbox();
                    handle(pkt, srcIp, dstIp);
                }
            }
        } finally {
            if (task.leaveForLater(pendingRead != null || qp.stateCode() == QpState.ERR.ordinal())) {
                work.defer(task);
            }
        }
    }

    /** Packets waiting for a QP that stopped receiving are lost; on UD, where nothing resends them, they count. */
    private void discardInbox() {
        int n = inbox.clear();
        if (n > 0 && qp.type() == QpType.UD) {
            qp.countReceiveDrops(n);
        }
    }

    /** Sends the rest of a READ reply without a budget. */
    private void finishRead(ResponderResource res) {
        while (!readReply(res.curPsn, res, Integer.MAX_VALUE)) {
            // cannot happen without a budget
        }
        pendingRead = null;
    }

    /** Called after receives were posted to a QP in ERR, so they get flushed. */
    public void kick() {
        task.schedule();
    }

    private static boolean isReceiving(int state) {
        return state == QpState.RTR.ordinal() || state == QpState.RTS.ordinal() || state == QpState.SQD.ordinal();
    }

    private void body() {
        int state = qp.stateCode();
        if (state == QpState.ERR.ordinal()) {
            discardInbox();
            receive.flush();
            return;
        }
        if (!isReceiving(state)) {
            discardInbox();
            pendingRead = null;
            return;
        }
        drainInbox();
    }

    private void drainInbox() {
        if (pendingRead != null) {
            ResponderResource res = pendingRead;
            pendingRead = null;
            if (!readReply(res.curPsn, res)) {
                return;
            }
        }
        long off;
        while (pendingRead == null && (off = inbox.peekOffset()) >= 0) {
            try {
                queued.wrap(inbox.memory(), off, inbox.length());
                handle(queued, inbox.srcIp(), inbox.dstIp());
            } catch (MalformedPacketException e) {
                // validated before it was queued
            } finally {
                inbox.release();
            }
            if (!isReceiving(qp.stateCode())) {
                return;
            }
        }
    }

    // ---- RC ---------------------------------------------------------------------------------------------

    private void handle(RocePacket pkt, int srcIp, int dstIp) {
        if (qp.type() == QpType.UD) {
            ud.onDatagram(pkt, srcIp, dstIp);
            return;
        }
        handled++;
        int diff = Psn.compare(pkt.psn(), psn);
        if (diff > 0) {
            outOfSequence++;
            if (!sentPsnNak) {
                sentPsnNak = true;
                sendAck(Aeth.nak(Aeth.NakCode.PSN_SEQUENCE_ERROR), psn);
            }
            return; // class B: drop until the expected PSN comes
        }
        if (diff < 0) {
            duplicates++;
            duplicate(pkt);
            return;
        }
        sentPsnNak = false;
        Opcode op = pkt.opcode();
        Operation operation = op.operation();
        if (!RequestChecks.validSequence(opcode, op)) {
            classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (!RequestChecks.accessAllowed(qp.accessFlags(), operation)) {
            classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
            return;
        }
        boolean readOrAtomic = operation == Operation.RDMA_READ_REQUEST || operation == Operation.COMPARE_SWAP
                || operation == Operation.FETCH_ADD;
        if (readOrAtomic && resources.isEmpty()) {
            classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (RequestChecks.needsReceive(op) && !receive.take(pkt)) {
            rnrNaksSent++;
            sendAck(Aeth.rnrNak(qp.minRnrTimer()), pkt.psn()); // class B: the requester retries later
            return;
        }
        if (!RequestChecks.lengthValid(pkt, op, qp.mtuBytes())) {
            lengthError(pkt);
            return;
        }
        switch (operation) {
            case SEND -> executeSend(pkt);
            case RDMA_WRITE -> executeWrite(pkt);
            case RDMA_READ_REQUEST -> executeRead(pkt);
            case COMPARE_SWAP, FETCH_ADD -> executeAtomic(pkt);
            default -> classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                    AsyncEventType.QP_REQ_ERR);
        }
    }

    private void executeSend(RocePacket pkt) {
        if (!receive.inHand()) { // cannot happen: validSequence and take guarantee one
            classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
            return;
        }
        int r = receive.scatterSend(pkt);
        if (r == Dma.NO_ROOM) {
            classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.LOC_LEN_ERR, AsyncEventType.QP_REQ_ERR);
            return;
        }
        if (r == Dma.PROTECTION) {
            classC(pkt, Aeth.NakCode.REMOTE_OPERATIONAL_ERROR, WcStatus.LOC_PROT_ERR, AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        Opcode op = pkt.opcode();
        int invalidated = 0;
        if (op.hasIeth()) {
            // only a type 2 window bound to this QP can be invalidated by the peer, never a region (IBA, rxe)
            invalidated = pkt.iethRKey();
            SoftMemoryWindow mw = qp.device().memoryWindow(invalidated);
            if (mw == null || !mw.invalidate(invalidated, qp, true)) {
                classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
                return;
            }
        }
        advance(pkt);
        if (op.position().isFirst() && !op.position().isLast()) {
            receive.firstOfManyExecuted();
        }
        if (op.position().isLast()) {
            int flags = op.hasImmDt() ? WcFlags.WITH_IMM : op.hasIeth() ? WcFlags.WITH_INV : 0;
            int imm = op.hasImmDt() ? pkt.immediate() : 0;
            receive.complete(WcOpcode.RECV, (int) receive.written(), flags, imm, invalidated, 0, pkt.solicitedEvent());
        }
        acknowledge(pkt);
    }

    private void executeWrite(RocePacket pkt) {
        Opcode op = pkt.opcode();
        int r = memory.write(pkt);
        if (r != ResponderMemory.OK) {
            accessFailed(pkt, r);
            return;
        }
        advance(pkt);
        if (op.hasImmDt()) {
            if (!receive.inHand()) {
                classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
                return;
            }
            receive.complete(WcOpcode.RECV_RDMA_WITH_IMM, (int) memory.writeLength(), WcFlags.WITH_IMM,
                    pkt.immediate(), 0, 0, pkt.solicitedEvent());
        }
        acknowledge(pkt);
    }

    private void executeRead(RocePacket pkt) {
        long readVa = pkt.rethVirtualAddress();
        int readKey = pkt.rethRKey();
        long len = Integer.toUnsignedLong(pkt.rethDmaLength());
        if (!memory.readable(readKey, readVa, len)) {
            classC(pkt, Aeth.NakCode.REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR, AsyncEventType.QP_ACCESS_ERR);
            return;
        }
        msn = (msn + 1) & Psn.MASK; // C9-148: a READ counts when it starts
        int mtu = qp.mtuBytes();
        int packets = (int) Math.max(1, (len + mtu - 1) / mtu);
        ResponderResource res = resources.startRead(pkt.psn(), packets, readVa, readKey, len);
        markEstablished();
        readReply(pkt.psn(), res);
    }

    /**
     * Sends the READ response packets of {@code res} from its current position. On a receive thread it sends at
     * most {@link #RECEIVE_THREAD_BUDGET} and leaves the rest to the work queue.
     *
     * @param requestPsn the PSN a NAK names if the memory turns out to be gone
     * @return whether the reply is complete (or failed)
     */
    private boolean readReply(int requestPsn, ResponderResource res) {
        return readReply(requestPsn, res, Dispatcher.onReceiveThread() ? RECEIVE_THREAD_BUDGET : Integer.MAX_VALUE);
    }

    private boolean readReply(int requestPsn, ResponderResource res, int budget) {
        int mtu = qp.mtuBytes();
        PathMigration.Paths paths = qp.paths().current();
        int sent = 0;
        do {
            if (sent == budget) {
                pendingRead = res;
                work.defer(task);
                return false;
            }
            boolean first = !res.started;
            boolean last = res.resid <= mtu;
            Opcode op = Opcode.rcReadResponse(Opcode.Position.of(first, last));
            int payload = (int) Math.min(res.resid, mtu);
            PacketBuilder builder = packets.beginReadResponse(op, res.curPsn, msn);
            if (payload > 0) {
                if (!memory.readInto(res, payload, packets.buffer(), builder.payloadOffset())) {
                    builder.payloadLength(0);
                    classC(requestPsn, Aeth.NakCode.REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR,
                            AsyncEventType.QP_ACCESS_ERR);
                    return true;
                }
                builder.payloadLength(payload);
            }
            packets.send(paths);
            sent++;
            res.started = true;
            res.va += payload;
            res.resid -= payload;
            res.curPsn = Psn.next(res.curPsn);
        } while (res.resid > 0);
        if (!res.replay) {
            opcode = -1;
        }
        if (Psn.compare(res.curPsn, psn) >= 0) {
            psn = res.curPsn;
        }
        return true;
    }

    private void executeAtomic(RocePacket pkt) {
        int r = memory.atomic(pkt);
        if (r != ResponderMemory.OK) {
            accessFailed(pkt, r);
            return;
        }
        long original = memory.original();
        resources.startAtomic(pkt.psn(), original);
        msn = (msn + 1) & Psn.MASK;
        psn = Psn.next(pkt.psn());
        ackPsn = psn;
        opcode = pkt.opcode().code();
        markEstablished();
        sendAtomicAck(pkt.psn(), original);
    }

    /** The request was executed: next PSN, MSN on the last packet, COMM_EST on the first in RTR. */
    private void advance(RocePacket pkt) {
        if (pkt.opcode().position().isLast()) {
            msn = (msn + 1) & Psn.MASK;
        }
        psn = Psn.next(pkt.psn());
        ackPsn = psn;
        opcode = pkt.opcode().code();
        markEstablished();
    }

    private void markEstablished() {
        if (!commEstRaised && qp.stateCode() == QpState.RTR.ordinal()) {
            commEstRaised = true;
            qp.raise(AsyncEventType.COMM_EST);
        }
    }

    private void acknowledge(RocePacket pkt) {
        if (pkt.ackReq()) {
            AckDeferral d = AckDeferral.whileReading();
            if (d != null) {
                // one ACK, sent by the loop after its handlers, covers the whole batch
                if (noted.note(d, pkt.opcode().operation() == Operation.SEND, qp.sender().requester.packetsSent)) {
                    d.add(this);
                }
                return;
            }
            sendAck(ACK_UNLIMITED, pkt.psn());
        }
    }

    /** {@link NotedAck#mayHold}: whether a spinning loop may hold the noted ACK across another turn (polling thread). */
    boolean mayHoldAck() {
        return noted.mayHold(qp.sender().requester.packetsSent);
    }

    /** {@link NotedAck#lastNotedAt} (polling thread, racy). */
    long lastNotedAt() {
        return noted.lastNotedAt();
    }

    /** {@link NotedAck#awaitsBurst}: whether the noted ACK may wait for the rest of a burst (polling thread). */
    boolean awaitsBurst() {
        return noted.awaitsBurst(qp.sender().requester.packetsSent);
    }

    /**
     * Sends the ACK {@link AckDeferral} noted for this responder: it acknowledges every request executed so far (the
     * PSN before the next expected one). Called by the polling thread after its handlers ran; enters the QP's task.
     *
     * @param requesterStalled whether the hold ran out while its requester sent nothing for most of it
     *     ({@link NotedAck}: holding then pauses)
     */
    void sendDeferredAck(boolean requesterStalled) {
        while (!task.tryEnter()) {
            Thread.onSpinWait(); // the body never waits for anything: bounded by one drain elsewhere
        }
        try {
            if (noted.take(requesterStalled)) {
                if (isReceiving(qp.stateCode())) {
                    sendAck(ACK_UNLIMITED, Psn.add(ackPsn, -1));
                }
            }
        } finally {
            if (task.leaveForLater(false)) {
                work.defer(task);
            }
        }
    }

    private void duplicate(RocePacket pkt) {
        Operation operation = pkt.opcode().operation();
        switch (operation) {
            case SEND, RDMA_WRITE -> sendAck(ACK_UNLIMITED, Psn.add(ackPsn, -1)); // C9-105
            case RDMA_READ_REQUEST -> {
                ResponderResource res = resources.replayRead(pkt);
                if (res != null) { // else class D: dropped (unknown, or not a subset of the original request)
                    readReply(pkt.psn(), res);
                }
            }
            case COMPARE_SWAP, FETCH_ADD -> {
                ResponderResource res = resources.replayAtomic(pkt.psn());
                if (res != null) {
                    sendAtomicAck(pkt.psn(), res.original); // never executed twice
                }
            }
            default -> { }
        }
    }

    private void lengthError(RocePacket pkt) {
        classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR, AsyncEventType.QP_REQ_ERR);
    }

    /** A WRITE or atomic {@link ResponderMemory} could not make: a bad length, a misaligned atomic, no access. */
    private void accessFailed(RocePacket pkt, int failure) {
        switch (failure) {
            case ResponderMemory.BAD_LENGTH -> lengthError(pkt);
            case ResponderMemory.MISALIGNED -> classC(pkt, Aeth.NakCode.INVALID_REQUEST, WcStatus.REM_INV_REQ_ERR,
                    AsyncEventType.QP_ACCESS_ERR);
            default -> classC(pkt, Aeth.NakCode.REMOTE_ACCESS_ERROR, WcStatus.REM_ACCESS_ERR,
                    AsyncEventType.QP_ACCESS_ERR);
        }
    }

    /**
     * IBTA class C (and A) responder errors: complete the receive in hand with {@code status}, NAK the request, raise
     * the affiliated event and move the QP to ERR (which flushes the rest).
     */
    private void classC(RocePacket pkt, Aeth.NakCode nak, WcStatus status, AsyncEventType event) {
        classC(pkt.psn(), nak, status, event);
    }

    private void classC(int requestPsn, Aeth.NakCode nak, WcStatus status, AsyncEventType event) {
        if (nak == Aeth.NakCode.REMOTE_ACCESS_ERROR) {
            Route r = qp.route();
            if (r != null) {
                qp.device().accessGuard().remoteAccessError(r.dstIp()); // guessing keys costs the peer more
            }
        }
        if (receive.inHand()) {
            receive.complete(WcOpcode.RECV, 0, 0, 0, 0, status.code(), false);
        }
        sendAck(Aeth.nak(nak), requestPsn);
        qp.error(); // first, so that whoever sees the event finds the QP in ERR
        qp.raise(event);
    }

    private void sendAck(int syndrome, int ackedPsn) {
        packets.ack(syndrome, ackedPsn, msn);
    }

    private void sendAtomicAck(int ackedPsn, long original) {
        packets.atomicAck(ackedPsn, msn, original);
    }

    /** RNR NAKs this responder sent: a request found no receive posted (racy snapshot). */
    public long rnrNaksSent() {
        return rnrNaksSent;
    }

    /** Requests that arrived ahead of the expected PSN (a lost packet before them; racy snapshot). */
    public long outOfSequence() {
        return outOfSequence;
    }

    /** Requests that arrived again (a retransmission of what was already executed; racy snapshot). */
    public long duplicates() {
        return duplicates;
    }

    /** How often a requester stalled on an ACK this responder held, which paused its holding (racy snapshot). */
    public long ackHoldStalls() {
        return noted.stalls();
    }

    /** UD datagrams dropped on arrival, by reason (racy snapshot). */
    public DatagramDrops datagramDrops() {
        return ud.drops();
    }

    /** The receive side's state, for diagnostics. */
    public String describe() {
        return "resp{handled=" + handled + " dup=" + duplicates + " ooo=" + outOfSequence + " psn=0x"
                + Integer.toHexString(psn) + " ackPsn=0x" + Integer.toHexString(ackPsn) + " msn=" + msn
                + " opcode=" + opcode + " sentPsnNak=" + sentPsnNak + " wqe=" + receive.inHand() + " rq="
                + (qp.rq() == null ? "srq" : qp.rq().size()) + " inboxDropped=" + inbox.dropped() + " resources="
                + resources + "}";
    }
}
