package dev.ibex.softroce.cm;

/**
 * Everything that can happen to an IB CM id: a consumer call, a received message already matched to the id
 * (or, for {@link #RECV_REQ}/{@link #RECV_SIDR_REQ} on a listener, a new request), or a timer.
 */
public enum IbCmInput {
    // consumer calls (ib_cm_listen, ib_send_cm_*, ib_cm_notify, ib_destroy_cm_id)
    LISTEN(Kind.CALL),
    SEND_REQ(Kind.CALL),
    SEND_REP(Kind.CALL),
    SEND_RTU(Kind.CALL),
    SEND_REJ(Kind.CALL),
    /** {@code ib_send_cm_mra} without the delay flag: the MRA goes out now. */
    SEND_MRA(Kind.CALL),
    /** {@code ib_send_cm_mra} with {@code IB_CM_MRA_FLAG_DELAY}: MRA only if a duplicate arrives. */
    DELAY_MRA(Kind.CALL),
    SEND_DREQ(Kind.CALL),
    SEND_DREP(Kind.CALL),
    SEND_SIDR_REQ(Kind.CALL),
    SEND_SIDR_REP(Kind.CALL),
    /** {@code ib_cm_notify(IB_EVENT_COMM_EST)}: the QP saw its first packet. */
    ESTABLISH(Kind.CALL),
    DESTROY(Kind.CALL),
    // received messages
    RECV_REQ(Kind.MESSAGE),
    RECV_MRA_REQ(Kind.MESSAGE),
    RECV_MRA_REP(Kind.MESSAGE),
    RECV_MRA_OTHER(Kind.MESSAGE),
    /** A REJ with any reason but STALE_CONN. */
    RECV_REJ(Kind.MESSAGE),
    RECV_REJ_STALE(Kind.MESSAGE),
    RECV_REP(Kind.MESSAGE),
    RECV_RTU(Kind.MESSAGE),
    RECV_DREQ(Kind.MESSAGE),
    RECV_DREP(Kind.MESSAGE),
    RECV_SIDR_REQ(Kind.MESSAGE),
    RECV_SIDR_REP(Kind.MESSAGE),
    RECV_LAP(Kind.MESSAGE),
    RECV_APR(Kind.MESSAGE),
    // timers
    /** The outstanding request (REQ, REP, DREQ, SIDR_REQ) was sent 1 + max CM retries times unanswered. */
    RETRIES_EXHAUSTED(Kind.TIMER),
    TIMEWAIT_EXPIRED(Kind.TIMER);

    /** Where an input comes from; it decides the default of a cell the table leaves out. */
    public enum Kind {
        /** Not allowed in a state → EINVAL. */
        CALL,
        /** Not expected in a state → discarded. */
        MESSAGE,
        /** Stale in a state → ignored. */
        TIMER
    }

    private final Kind kind;

    IbCmInput(Kind kind) {
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
