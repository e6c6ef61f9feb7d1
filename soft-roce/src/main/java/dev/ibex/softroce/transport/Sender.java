package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.softroce.verbs.SerialTask;
import dev.ibex.softroce.verbs.SoftQueuePair;
import dev.ibex.softroce.wire.MalformedPacketException;
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
    private final Timers.Timer retransmitTimer;
    private final Timers.Timer rnrTimer;
    private final boolean retrySevenIsInfinite;
    private volatile boolean timeoutFired;
    private volatile boolean rnrFired;
    private long retransmitNanos;
    // diagnostics (racy counters)
    long retries;
    long timeouts;
    long responsesInline;
    long responsesQueued;
    long responsesProcessed;

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
        this.retransmitTimer = timers.newTimer(() -> {
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
        retransmitTimer.disarm();
        rnrTimer.disarm();
        timeoutFired = false;
        rnrFired = false;
        updateTimeout();
    }

    /** Re-reads {@code timeout}, {@code retry_cnt} and {@code rnr_retry} after a modify. Inside the task. */
    public void updateTimeout() {
        int t = qp.timeout();
        retransmitNanos = t == 0 ? 0 : qp.device().config().scaled(4096L << t);
    }

    /** Stops the timers (QP destroyed). */
    public void stop() {
        retransmitTimer.disarm();
        rnrTimer.disarm();
    }

    /** Called by the poster after publishing WQEs: sends now if the task is idle. */
    public void kick() {
        task.schedule();
    }

    /** A response packet for this QP arrived (receive thread). */
    public void onResponse(RocePacket pkt) {
        if (task.tryEnter()) {
            responsesInline++;
            try {
                if (isSending(qp.stateCode())) {
                    drainInbox();
                    retryIfNeeded();
                    responsesProcessed++;
                    completer.onResponse(pkt);
                }
            } finally {
                task.leave();
            }
        } else {
            responsesQueued++;
            inbox.offer(pkt.segment(), pkt.offset(), pkt.length(), 0, 0);
            task.schedule();
        }
    }

    private static boolean isSending(int state) {
        return state == QpState.RTS.ordinal() || state == QpState.SQD.ordinal();
    }

    private void retryIfNeeded() {
        if (requester.needRetry && !requester.waitForRnrTimer) {
            requester.retry();
            requester.needRetry = false;
        }
    }

    private void drainInbox() {
        long off;
        while ((off = inbox.peekOffset()) >= 0) {
            try {
                queued.wrap(inbox.memory(), off, inbox.length());
                retryIfNeeded();
                responsesProcessed++;
                completer.onResponse(queued);
            } catch (MalformedPacketException e) {
                // it was valid when queued; cannot happen
            } finally {
                inbox.release();
            }
        }
    }

    private void body() {
        int state = qp.stateCode();
        if (state == QpState.ERR.ordinal()) {
            inbox.clear();
            retransmitTimer.disarm();
            rnrTimer.disarm();
            completer.flush();
            return;
        }
        if (!isSending(state)) {
            inbox.clear();
            return;
        }
        if (rnrFired) {
            rnrFired = false;
            requester.needRetry = true;
            requester.waitForRnrTimer = false;
        }
        int budget = Dispatcher.onReceiveThread() ? RECEIVE_THREAD_BUDGET : Integer.MAX_VALUE;
        for (;;) {
            long beforeConsumer = qp.sq().consumerIndex();
            int beforePsn = completer.psn;
            boolean progress = requester.run(budget);
            if (requester.budgetExhausted) {
                // a receive thread must get back to receiving: the rest goes to the work queue
                drainInbox();
                completer.onIdle(false);
                work.defer(task);
                return;
            }
            drainInbox();
            boolean timedOut = timeoutFired;
            if (timedOut) {
                timeoutFired = false;
                timeouts++;
            }
            completer.onIdle(timedOut);
            if (qp.stateCode() == QpState.ERR.ordinal()) {
                completer.flush();
                return;
            }
            progress |= qp.sq().consumerIndex() != beforeConsumer || completer.psn != beforePsn
                    || (requester.needRetry && !requester.waitForRnrTimer);
            if (!progress) {
                break;
            }
        }
        checkDrained();
    }

    // ---- used by the requester and completer ------------------------------------------------------------

    void armRetransmitIfIdle() {
        if (retransmitNanos > 0) {
            retransmitTimer.armIfIdle(retransmitNanos);
        }
    }

    /** rxe's {@code reset_retry_timer}: push the deadline while PSNs are outstanding, else stop it. */
    void resetRetransmitTimer() {
        if (qp.type() == QpType.RC && retransmitNanos > 0 && Psn.compare(requester.psn, completer.psn) > 0) {
            retransmitTimer.armAfter(retransmitNanos);
        } else {
            retransmitTimer.disarm();
        }
    }

    void armRnrTimer(long nanos) {
        rnrTimer.armAfter(qp.device().config().scaled(nanos));
    }

    boolean retrySevenIsInfinite() {
        return retrySevenIsInfinite;
    }

    /** The BTH MigReq bit to send (APM is not implemented: always 0, like rxe). */
    boolean migReq() {
        return false;
    }

    /** How many times the requester went back to the oldest unacknowledged PSN (timeouts, NAKs, RNR). */
    public long retries() {
        return retries;
    }

    /** The send side's state, for diagnostics. */
    public String describe() {
        return "req{psn=0x" + Integer.toHexString(requester.psn) + " wqe=" + requester.wqeIndex + " opcode="
                + requester.opcode + " rdAtomicFree=" + requester.rdAtomicFree + " needRetry=" + requester.needRetry
                + " waitRnr=" + requester.waitForRnrTimer + " waitPsn=" + requester.waitPsn + "} comp{psn=0x"
                + Integer.toHexString(completer.psn) + " retry=" + completer.retryCount + " rnrRetry="
                + completer.rnrRetryCount + "} sq{prod=" + qp.sq().producerIndex() + " cons=" + qp.sq().consumerIndex()
                + "} timer{armed=" + retransmitTimer.isArmed() + " rnr=" + rnrTimer.isArmed() + "} inboxDropped="
                + inbox.dropped() + " retries=" + retries + " timeouts=" + timeouts + " inline=" + responsesInline
                + " queued=" + responsesQueued + " processed=" + responsesProcessed;
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
