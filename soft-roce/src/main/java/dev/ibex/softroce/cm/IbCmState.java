package dev.ibex.softroce.cm;

/** The IB CM communication states ({@code enum ib_cm_state}, IBTA vol. 1 ch. 12). */
public enum IbCmState {
    IDLE,
    LISTEN,
    REQ_SENT,
    REQ_RCVD,
    MRA_REQ_SENT,
    MRA_REQ_RCVD,
    REP_SENT,
    REP_RCVD,
    MRA_REP_SENT,
    MRA_REP_RCVD,
    ESTABLISHED,
    DREQ_SENT,
    DREQ_RCVD,
    TIMEWAIT,
    SIDR_REQ_SENT,
    SIDR_REQ_RCVD
}
