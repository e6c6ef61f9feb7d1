package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.CmMessage;

/**
 * An IB CM id's timers: the request awaiting an answer (REQ, REP, DREQ or SIDR_REQ), resent every response timeout
 * until answered or out of retries — an MRA stretches the wait for this try and each remaining one
 * ({@code ib_modify_mad}) — and the timewait after a connection ({@code cm_enter_timewait}). A timer fires under the
 * CM's lock and acts only if it is still the id's current one: a cancel may race with its firing.
 *
 * <p>Threading: under the CM's lock.
 */
final class IbCmTimers {
    private final IbCm cm;
    private final IbCmId id;
    private Outstanding outstanding;
    private CmTimer.Cancellable timewait;

    IbCmTimers(IbCm cm, IbCmId id) {
        this.cm = cm;
        this.id = id;
    }

    /**
     * Sends {@code message} (in place of any request still outstanding) and sends it again every {@code timeoutMs}
     * up to {@code retries} times; then, if the id is still in {@code expect}, feeds it RETRIES_EXHAUSTED.
     */
    void sendRequest(CmMessage message, long requestTid, long timeoutMs, int retries, IbCmState expect) {
        cancelSend();
        outstanding = new Outstanding(message, requestTid, timeoutMs, retries, expect);
        outstanding.transmit();
    }

    /** The outstanding request was answered (or the id moved on): no more resends. */
    void cancelSend() {
        if (outstanding != null) {
            outstanding.cancel();
            outstanding = null;
        }
    }

    /** An MRA arrived: the outstanding request, if any, waits {@code newTimeoutMs} per try, now for {@code newExpect}. */
    void extendSend(long newTimeoutMs, IbCmState newExpect) {
        if (outstanding != null) {
            outstanding.extend(newTimeoutMs, newExpect);
        }
    }

    /** Starts the timewait: after {@code timeoutMs} an id still in TIMEWAIT is fed TIMEWAIT_EXPIRED. */
    void enterTimewait(long timeoutMs) {
        cancelTimewait();
        CmTimer.Cancellable[] self = new CmTimer.Cancellable[1];
        self[0] = cm.timer.schedule(timeoutMs, () -> cm.locked(() -> {
            if (!id.isDestroyed() && id.current() == IbCmState.TIMEWAIT && timewait == self[0]) {
                timewait = null;
                id.apply(IbCmInput.TIMEWAIT_EXPIRED, IbCm.Stimulus.NONE);
            }
        }));
        timewait = self[0];
    }

    void cancelTimewait() {
        if (timewait != null) {
            timewait.cancel();
            timewait = null;
        }
    }

    /** The id is destroyed or back in IDLE: every timer stops. */
    void stop() {
        cancelSend();
        cancelTimewait();
    }

    /** The request awaiting an answer (REQ, REP, DREQ or SIDR_REQ), resent until answered or out of retries. */
    private final class Outstanding {
        private final CmMessage message;
        private final long requestTid;
        private long timeoutMs;
        private int retriesLeft;
        private IbCmState expect;
        private CmTimer.Cancellable timer;
        private boolean cancelled;

        Outstanding(CmMessage message, long requestTid, long timeoutMs, int retries, IbCmState expect) {
            this.message = message;
            this.requestTid = requestTid;
            this.timeoutMs = timeoutMs;
            this.retriesLeft = retries;
            this.expect = expect;
        }

        void transmit() {
            cm.send(id.port, id.remoteAddress, requestTid, message);
            arm();
        }

        void arm() {
            timer = cm.timer.schedule(timeoutMs, () -> cm.locked(this::expired));
        }

        /** An MRA arrived: wait longer for this try and each remaining one (ib_modify_mad). */
        void extend(long newTimeoutMs, IbCmState newExpect) {
            timer.cancel();
            timeoutMs = newTimeoutMs;
            expect = newExpect;
            arm();
        }

        void expired() {
            if (cancelled || outstanding != this || id.isDestroyed()) {
                return;
            }
            if (retriesLeft > 0) {
                retriesLeft--;
                transmit();
                return;
            }
            outstanding = null;
            if (id.current() == expect) {
                id.apply(IbCmInput.RETRIES_EXHAUSTED, IbCm.Stimulus.NONE);
            }
        }

        void cancel() {
            cancelled = true;
            timer.cancel();
        }
    }
}
