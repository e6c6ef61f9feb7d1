package dev.ibex.softroce.cm;

/** The steps a transition performs, in the order listed in its cell. */
public enum IbCmAction {
    /** Register the service ID in the listen table. */
    LISTEN_INSERT,
    LISTEN_REMOVE,
    /** A listener got a REQ: create a new id in REQ_RCVD and report REQ_RECEIVED on it. */
    SPAWN_REQ,
    /** A listener got a SIDR_REQ: create a new id in SIDR_REQ_RCVD and report SIDR_REQ_RECEIVED on it. */
    SPAWN_SIDR_REQ,
    /** REQ with response timer and retries (new TID formed from the local comm ID). */
    SEND_REQ,
    /** REP with response timer and retries (REQ's TID). */
    SEND_REP,
    SEND_RTU,
    /** A duplicate REP arrived in ESTABLISHED: send the RTU again. */
    RESEND_RTU,
    /** The consumer's REJ. */
    SEND_REJ,
    /** Destroy while the REQ is outstanding: REJ TIMEOUT (4) with ARI = the local CA GUID. */
    SEND_REJ_TIMEOUT,
    /** Destroy during setup: REJ CONSUMER_DEFINED (28) without private data. */
    SEND_REJ_CONSUMER,
    /** A duplicate REQ arrived in TIMEWAIT: REJ STALE_CONN (10). */
    SEND_REJ_STALE,
    /** Remember the service timeout and private data of a delayed MRA ({@code IB_CM_MRA_FLAG_DELAY}). */
    PREPARE_MRA,
    SEND_MRA,
    /** A duplicate REQ/REP arrived after a (delayed) MRA: send the MRA now. */
    RESEND_MRA,
    /** DREQ with response timer and retries (new TID formed from the local comm ID). */
    SEND_DREQ,
    /** Destroy while established: one DREQ, no retries (the id goes away at once). */
    SEND_DREQ_ONCE,
    SEND_DREP,
    /** A duplicate DREQ arrived in TIMEWAIT: send the DREP again. */
    RESEND_DREP,
    SEND_SIDR_REQ,
    SEND_SIDR_REP,
    /** Destroy before answering a SIDR_REQ: SIDR_REP status REJECT (2). */
    SEND_SIDR_REP_REJECT,
    /** Stop the outstanding request's retries. */
    CANCEL_SEND,
    /** An MRA arrived: the outstanding request now waits 2^(svc−8) + 2^(av timeout−8) ms per try. */
    EXTEND_SEND,
    /** Take the REP's comm ID, QPN, PSN, resources and ACK delay. */
    RECORD_REP,
    /** A DREQ arrived: later DREPs reuse its TID. */
    RECORD_DREQ_TID,
    /** Forget the remote QPN and start the timewait timer (2^(av timeout−8) ms). */
    ENTER_TIMEWAIT,
    CANCEL_TIMEWAIT
}
