package dev.ibex.softroce.transport;

/**
 * The ACK a {@link Responder} owes and noted in its loop's {@link AckDeferral} instead of sending it: which requests it
 * covers, and whether the loop may keep it for another turn — to hold it across turns (a spinning loop whose
 * application answers), or to wait for the rest of a burst (nobody answered yet).
 *
 * <p><b>Requesters that wait.</b> A held ACK delays its SENDs' completions by up to the hold. A requester that waits
 * for each completion before it sends again would wait the hold on every request; it shows as a hold that ran out
 * while its requester sent nothing for most of it ({@link #stalled}). The next {@link #FIRST_HOLD_PAUSE} requests
 * are then acknowledged unheld, and the pause doubles at each further stall (up to {@link #MAX_HOLD_PAUSE}) until an
 * ACK covers two requests again (its requester sent on without waiting): a requester that waits waits the hold ever
 * more rarely, one that only paused (a gap between bursts, a collection) is held again after the first pause.
 *
 * <p>Threading: written inside the responder's QP task on the polling thread; {@link #mayHold} and
 * {@link #awaitsBurst} are read by that thread outside the task, racily — a stale read only lets the ACK leave a turn
 * earlier or later, never past the hold time.
 */
final class NotedAck {
    /** Requests acknowledged unheld after a requester's first stall on a held ACK. */
    static final int FIRST_HOLD_PAUSE = 8;
    /** The longest such pause, in requests. */
    static final int MAX_HOLD_PAUSE = 1 << 16;

    /** The polling thread's deferral the ACK was noted in and not sent yet, or null. */
    private AckDeferral deferral;
    /** Requests the noted ACK covers. */
    private int requests;
    /** Whether the noted ACK covers SENDs only (a WRITE's requester has nothing else to wait for). */
    private boolean sendsOnly;
    /** The QP's requester packet count when the ACK was noted: a change means this side answered. */
    private long sentWhenNoted;
    /** When the latest request it covers was read ({@link AckDeferral#clock}). */
    private long lastNotedAt;
    /** Requests noted so far, and the count after which holding resumes since a requester stalled. */
    private long noted, holdAfter;
    /** The pause the next stall sets. */
    private int pause = FIRST_HOLD_PAUSE;
    private long stalls;

    /**
     * Notes one more request in {@code d}: the first since the last ACK puts this responder in the deferral's list.
     *
     * @param send          whether the request is a SEND
     * @param requesterSent the QP's requester packet count now
     * @return whether the deferral must be told ({@link AckDeferral#add}): the first request of this ACK
     */
    boolean note(AckDeferral d, boolean send, long requesterSent) {
        boolean first = deferral != d; // (a deferral of a poller that closed before sending is replaced)
        if (first) {
            deferral = d;
            requests = 0;
            sendsOnly = true;
            sentWhenNoted = requesterSent;
        }
        requests++;
        noted++;
        lastNotedAt = d.clock();
        if (!send) {
            sendsOnly = false;
        }
        return first;
    }

    /**
     * Whether a spinning loop may hold the ACK across another turn: it covers SENDs only, fewer than
     * {@link AckDeferral#MAX_HELD_REQUESTS}, holding is not paused, and this QP sent a request since (the application
     * answered, so the peer's next request is coming).
     */
    boolean mayHold(long requesterSent) {
        return sendsOnly && noted > holdAfter && requests < AckDeferral.MAX_HELD_REQUESTS && requesterSent != sentWhenNoted;
    }

    /**
     * Whether the ACK may wait for the rest of a burst: this QP sent nothing since it was noted (the application has
     * not answered) and it covers fewer than {@link AckDeferral#MAX_HELD_REQUESTS} requests.
     */
    boolean awaitsBurst(long requesterSent) {
        return requests < AckDeferral.MAX_HELD_REQUESTS && requesterSent == sentWhenNoted;
    }

    /** When the latest request the ACK covers was read, by {@link AckDeferral#clock}. */
    long lastNotedAt() {
        return lastNotedAt;
    }

    /**
     * The ACK leaves: clears it and keeps the pause's books.
     *
     * @param stalled whether the hold ran out while its requester sent nothing for most of it (see the class comment)
     * @return whether an ACK was noted (else there is nothing to send: it left already)
     */
    boolean take(boolean stalled) {
        if (stalled) {
            holdAfter = noted + pause; // the next `pause` requests are acknowledged unheld
            pause = Math.min(MAX_HOLD_PAUSE, pause * 2);
            stalls++;
        } else if (requests > 1) {
            pause = FIRST_HOLD_PAUSE; // its requester sent again before this ACK: it was not waiting for it
        }
        boolean noted = deferral != null;
        deferral = null;
        return noted;
    }

    /** How often a requester stalled on a held ACK (racy snapshot). */
    long stalls() {
        return stalls;
    }
}
