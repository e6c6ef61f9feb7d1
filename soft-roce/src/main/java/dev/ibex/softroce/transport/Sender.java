package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.softroce.wire.Aeth;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.Opcode;
import dev.ibex.softroce.wire.PacketBuilder;
import java.lang.foreign.MemorySegment;
import dev.ibex.softroce.wire.Psn;
import dev.ibex.softroce.wire.RocePacket;

/**
 * The send side of a QP (rxe's send task): the {@link Requester} and the {@link Completer} with their timers,
 * run by the QP's send {@link SerialTask}. Whoever triggers it — the thread that posts, the receive thread that
 * brings a response, the timer thread — runs it in place when it is idle, so a post normally goes out on the
 * poster's thread and a response is processed on the receive thread without a copy. A response that arrives while
 * another thread runs the task is copied into a small inbox and handled by that thread.
 */
public final class Sender {
    /** Largest packet the transport builds: 4096 bytes of payload plus headers, pad and ICRC. */
    public static final int MAX_PACKET = 4096 + 128;

    final SoftQueuePair qp;
    final Requester requester;
    final Completer completer;
    private final SerialTask task;
    private final PacketInbox inbox = new PacketInbox(32, MAX_PACKET);
    private final RocePacket queued = new RocePacket();
    /**
     * Plain ACKs that arrived while the task was busy, folded into the newest one (ACKs are cumulative): valid bit
     * 1 << 48, PSN in bits 24..47, MSN in bits 0..23. Keeps a storm of duplicate ACKs from crowding NAKs out of the
     * inbox.
     */
    private final java.util.concurrent.atomic.AtomicLong coalescedAck = new java.util.concurrent.atomic.AtomicLong();
    private final PacketBuilder ackBuilder = new PacketBuilder();
    private final MemorySegment ackScratch = MemorySegment.ofArray(new byte[64]);
    private final Timers.Timer retransmitTimer;
    private final Timers.Timer rnrTimer;
    private final boolean retrySevenIsInfinite;
    private volatile boolean timeoutFired;
    /** {@link ReceptionProgress#mark} when the retransmit timer last fired (written before {@link #timeoutFired}). */
    private long firedMark;
    /** Expiries put off in this timeout cycle because the reception was behind (task-confined). */
    private int expiriesPutOff;
    private final ReceptionProgress reception;
    private volatile boolean rnrFired;
    // diagnostics (racy counters)
    long retries;
    long timeouts;
    long timeoutsPutOff;
    long responsesInline;
    long responsesQueued;
    long responsesProcessed;

    /** Expiries in a row {@link #putOffExpiry} may put off: four periods in all. */
    static final int MAX_EXPIRIES_PUT_OFF = 16;

    /** Packets a receive thread may send before it hands the rest to the work queue. */
    static final int RECEIVE_THREAD_BUDGET = 16;

    private final WorkQueue work;

    public Sender(SoftQueuePair qp, Timers timers, WorkQueue work, boolean retrySevenIsInfinite) {
        this.qp = qp;
        this.work = work;
        this.retrySevenIsInfinite = retrySevenIsInfinite;
        this.requester = new Requester(qp, this);
        this.completer = new Completer(qp, this);
        this.task = new SerialTask("send task of QP 0x" + Integer.toHexString(qp.qpNum()), this::body);
        this.reception = qp.device().reception();
        this.retransmitTimer = timers.newTimer(() -> {
            firedMark = reception.mark();
            timeoutFired = true;
            work.defer(task);
        });
        this.rnrTimer = timers.newTimer(() -> {
            rnrFired = true;
            work.defer(task);
        });
    }

    /** The task every send-side change runs under. */
    public SerialTask task() {
        return task;
    }

    /**
     * Resets the send side for a QP entering RTS (or RESET): next PSN {@code sqPsn}, retry budgets from the QP's
     * attributes. Call inside the task ({@link SerialTask#runExclusive}).
     */
    public void reset(int sqPsn) {
        requester.reset(sqPsn, qp.maxRdAtomic());
        completer.reset(sqPsn);
        inbox.clear();
        coalescedAck.set(0);
        retransmitTimer.disarm();
        rnrTimer.disarm();
        timeoutFired = false;
        rnrFired = false;
        expiriesPutOff = 0;
        updateTimeout();
    }

    /**
     * Re-reads {@code timeout} after a modify. Inside the task. (The timer reads the primary path's timeout each
     * time it is armed, so a migration — which brings the alternate's — needs no call.)
     */
    public void updateTimeout() {
        // nothing cached
    }

    /** The transport timer's period: 4.096 µs · 2^timeout of the primary path, scaled; 0 = off. */
    private long retransmitNanos() {
        int t = qp.timeout();
        return t == 0 ? 0 : qp.device().config().scaled(4096L << t);
    }

    /** Stops the timers and takes them out of the timer queue (QP destroyed: nothing of it may stay reachable). */
    public void stop() {
        retransmitTimer.cancel();
        rnrTimer.cancel();
    }

    /** Called by the poster after publishing WQEs: sends now if the task is idle. */
    public void kick() {
        task.schedule();
    }

    /**
     * A response packet for this QP arrived (receive thread). Processed in place when the task is idle; then at
     * most {@link #RECEIVE_THREAD_BUDGET} packets the response allows are sent here and the rest is left to the
     * work queue, so the receive thread goes back to receiving.
     */
    public void onResponse(RocePacket pkt) {
        if (task.tryEnter()) {
            responsesInline++;
            processInline(pkt);
            return;
        }
        responsesQueued++;
        if (pkt.opcode() == Opcode.RC_ACKNOWLEDGE && Aeth.type(pkt.aethSyndrome()) == Aeth.Type.ACK
                && Psn.compare(pkt.psn(), requester.publishedHighestPsn) <= 0) {
            // only an ACK of a PSN sent is folded: folding keeps the newest, so one for a PSN never sent (forged)
            // would push out the real ACKs waiting, and many would be counted as one invalid response. The rest
            // go through the inbox to the completer, which drops and counts them (a stale read of the published
            // PSN only sends a real ACK that way too).
            coalesce(pkt.psn(), pkt.aethMsn());
        } else if (!inbox.offer(pkt.segment(), pkt.offset(), pkt.length(), 0, 0)) {
            // the inbox is full: wait for the task (its owner is draining the inbox) and process in place,
            // like a NIC that runs out of descriptors; the socket buffer absorbs the pause
            while (!task.tryEnter()) {
                Thread.onSpinWait();
            }
            processInline(pkt);
            return;
        }
        // never run the body here (a receive thread could get stuck sending): the owner goes round again,
        // or the work queue runs it
        if (!task.nudge()) {
            work.defer(task);
        }
    }

    /** Inside the task on a receive thread: the response, then one bounded step; the rest goes elsewhere. */
    private void processInline(RocePacket pkt) {
        boolean more = false;
        try {
            if (isSending(qp.stateCode())) {
                drainInbox();
                responsesProcessed++;
                completer.onResponse(pkt);
                step(RECEIVE_THREAD_BUDGET);
                more = pendingWork();
            } else {
                more = qp.stateCode() == QpState.ERR.ordinal();
            }
        } finally {
            if (task.leaveForLater(more)) {
                work.defer(task);
            }
        }
    }

    private void coalesce(int psn, int msn) {
        long mine = 1L << 48 | (long) psn << 24 | msn;
        for (;;) {
            long cur = coalescedAck.get();
            if (cur != 0 && Psn.compare((int) (cur >>> 24) & Psn.MASK, psn) >= 0) {
                return; // a newer one is already waiting
            }
            if (coalescedAck.compareAndSet(cur, mine)) {
                return;
            }
        }
    }

    private boolean inboxEmpty() {
        return inbox.isEmpty() && coalescedAck.get() == 0;
    }

    private static boolean isSending(int state) {
        return state == QpState.RTS.ordinal() || state == QpState.SQD.ordinal();
    }

    private void drainInbox() {
        long off;
        while ((off = inbox.peekOffset()) >= 0) {
            try {
                queued.wrap(inbox.memory(), off, inbox.length());
                responsesProcessed++;
                completer.onResponse(queued);
            } catch (MalformedPacketException e) {
                // it was valid when queued; cannot happen
            } finally {
                inbox.release();
            }
        }
        long ack = coalescedAck.getAndSet(0);
        if (ack != 0) {
            int len = ackBuilder.begin(ackScratch, 0, Opcode.RC_ACKNOWLEDGE).destQp(qp.qpNum())
                    .psn((int) (ack >>> 24) & Psn.MASK).aeth(Aeth.ack(Aeth.CREDITS_UNLIMITED), (int) ack & Psn.MASK)
                    .finishIpv4(0, 0, 0, 0);
            try {
                queued.wrap(ackScratch, 0, len);
                responsesProcessed++;
                completer.onResponse(queued);
            } catch (MalformedPacketException e) {
                // built right here
            }
        }
    }

    private void body() {
        int state = qp.stateCode();
        if (state == QpState.ERR.ordinal()) {
            inbox.clear();
            coalescedAck.set(0);
            retransmitTimer.disarm();
            rnrTimer.disarm();
            completer.flush();
            return;
        }
        if (!isSending(state)) {
            inbox.clear();
            coalescedAck.set(0);
            return;
        }
        if (Dispatcher.onReceiveThread()) {
            // a receive thread that got here through schedule(): one bounded step, the rest elsewhere
            step(RECEIVE_THREAD_BUDGET);
            if (pendingWork()) {
                work.defer(task);
            }
            return;
        }
        while (step(Integer.MAX_VALUE)) {
            // until nothing moves
        }
        checkDrained();
    }

    /** Whether a step left work that another step must do (not just: whether it made progress). */
    private boolean pendingWork() {
        return requester.budgetExhausted || (requester.needRetry && !requester.waitForRnrTimer) || !inboxEmpty()
                || rnrFired || timeoutFired;
    }

    /**
     * One round: expired timers, the requester (at most {@code budget} packets), queued responses, WQEs that need
     * no response.
     *
     * @return whether another round may find work
     */
    private boolean step(int budget) {
        boolean inRnrWait = requester.waitForRnrTimer; // before an RNR expiry below ends the wait
        if (rnrFired) {
            rnrFired = false;
            requester.needRetry = true;
            requester.waitForRnrTimer = false;
        }
        long beforeConsumer = qp.sq().consumerIndex();
        int beforePsn = completer.psn;
        boolean progress = requester.run(budget);
        drainInbox();
        boolean timedOut = timeoutFired;
        if (timedOut) {
            timeoutFired = false;
            // an expiry that raced with an RNR NAK is no transport timeout: the RNR wait owns the retry
            timedOut = !inRnrWait && !requester.waitForRnrTimer;
            if (timedOut && putOffExpiry()) {
                timedOut = false;
            } else if (timedOut) {
                timeouts++;
                expiriesPutOff = 0;
            }
        }
        completer.onIdle(timedOut);
        if (qp.stateCode() == QpState.ERR.ordinal()) {
            completer.flush();
            return false;
        }
        return progress || requester.budgetExhausted || qp.sq().consumerIndex() != beforeConsumer
                || completer.psn != beforePsn || (requester.needRetry && !requester.waitForRnrTimer)
                || !inboxEmpty();
    }

    /**
     * Whether to put off an expiry of the retransmit timer instead of retrying: the loop that reads this device's
     * sockets has not found them empty since the timer fired, so the response may be there, unread
     * ({@link ReceptionProgress}). The timer then looks again after a quarter of its period, at most
     * {@link #MAX_EXPIRIES_PUT_OFF} times in a row: a socket kept full (a flood) delays the detection of a dead peer
     * by at most four periods per try (five times the usual), it cannot hide it.
     */
    private boolean putOffExpiry() {
        if (expiriesPutOff >= MAX_EXPIRIES_PUT_OFF || !reception.behindSince(firedMark)) {
            return false;
        }
        expiriesPutOff++;
        timeoutsPutOff++;
        retransmitTimer.armAfter(Math.max(1, retransmitNanos() / 4));
        return true;
    }

    // ---- used by the requester and completer ------------------------------------------------------------

    void armRetransmitIfIdle() {
        long nanos = retransmitNanos();
        if (nanos > 0 && !requester.waitForRnrTimer) { // packets sent during an RNR wait wait with it
            retransmitTimer.armIfIdle(nanos);
        }
    }

    /**
     * rxe's {@code reset_retry_timer}: push the deadline while PSNs are outstanding, else stop it. Stopped, too,
     * while the requester waits out an RNR NAK: that wait is not a transport retry and must not use up
     * {@code retry_cnt}; the resend when the RNR timer fires starts the timer again.
     */
    void resetRetransmitTimer() {
        expiriesPutOff = 0;
        long nanos = retransmitNanos();
        if (qp.type() == QpType.RC && nanos > 0 && !requester.waitForRnrTimer
                && Psn.compare(requester.psn, completer.psn) > 0) {
            retransmitTimer.armAfter(nanos);
        } else {
            retransmitTimer.disarm();
        }
    }

    /** Starts an RNR wait: the RNR timer runs and the retransmit timer stops until the resend. */
    void armRnrTimer(long nanos) {
        retransmitTimer.disarm();
        rnrTimer.armAfter(qp.device().config().scaled(nanos));
    }

    boolean retrySevenIsInfinite() {
        return retrySevenIsInfinite;
    }

    /** How many times the requester went back to the oldest unacknowledged PSN (timeouts, NAKs, RNR). */
    public long retries() {
        return retries;
    }

    /** How many times the retransmit timer expired (racy snapshot). */
    public long timeouts() {
        return timeouts;
    }

    /** Expiries put off because this side's own reception was behind (racy snapshot). */
    public long timeoutsPutOff() {
        return timeoutsPutOff;
    }

    /** RNR NAKs the peer sent this QP: it had no receive posted (racy snapshot). */
    public long rnrNaksReceived() {
        return completer.rnrNaks;
    }

    /** The PSN of the next request packet (a racy snapshot from another thread). */
    public int nextPsn() {
        return requester.psn;
    }

    /** Responses dropped for a PSN ahead of every request sent (forged, or from a confused peer). */
    public long invalidResponses() {
        return completer.invalidPsn;
    }

    /** The send side's state, for diagnostics. */
    public String describe() {
        return "req{sent=" + requester.packetsSent + " lastRetryFrom=0x" + Integer.toHexString(requester.lastRetryFrom)
                + " headWqe=" + headWqe() + " psn=0x" + Integer.toHexString(requester.psn) + " wqe=" + requester.wqeIndex + " opcode="
                + requester.opcode + " rdAtomicFree=" + requester.rdAtomicFree + " needRetry=" + requester.needRetry
                + " waitRnr=" + requester.waitForRnrTimer + " waitPsn=" + requester.waitPsn + "} comp{psn=0x"
                + Integer.toHexString(completer.psn) + " seen=" + completer.seen + " lastSeen=0x"
                + Integer.toHexString(completer.lastSeenPsn) + "/0x" + Integer.toHexString(completer.lastSeenOpcode)
 + " decrements=" + completer.decrements + " invalidPsn=" + completer.invalidPsn + " retry=" + completer.retryCount + " rnrRetry="
                + completer.rnrRetryCount + "} sq{prod=" + qp.sq().producerIndex() + " cons=" + qp.sq().consumerIndex()
                + "} timer{armed=" + retransmitTimer.isArmed() + " rnr=" + rnrTimer.isArmed() + "} inboxDropped="
                + inbox.dropped() + " retries=" + retries + " timeouts=" + timeouts + " inline=" + responsesInline
                + " queued=" + responsesQueued + " processed=" + responsesProcessed;
    }

    private String headWqe() {
        var sq = qp.sq();
        if (sq.consumerIndex() == sq.producerIndex()) {
            return "none";
        }
        var w = sq.at(sq.consumerIndex());
        if (w == null) { // retired between the two reads: describe() runs on any thread, beside the QP's work
            return "retiring";
        }
        return w.state + "/0x" + Integer.toHexString(w.firstPsn) + "-0x" + Integer.toHexString(w.lastPsn) + "/resid"
                + w.resid;
    }

    /** Raises SQ_DRAINED once the QP in SQD has every sent message acknowledged. */
    void checkDrained() {
        if (qp.stateCode() == QpState.SQD.ordinal() && qp.sqDraining() && completer.allAcked()
                && qp.sq().consumerIndex() == requester.wqeIndex && requester.opcode == -1) {
            if (qp.markDrained()) {
                qp.raise(AsyncEventType.SQ_DRAINED);
            }
        }
    }
}
