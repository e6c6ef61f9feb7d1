package dev.ibex.softroce.cm;

/** Events the IB CM reports to its consumer ({@code enum ib_cm_event_type}). */
public enum IbCmEventType {
    REQ_ERROR,
    REQ_RECEIVED,
    REP_ERROR,
    REP_RECEIVED,
    RTU_RECEIVED,
    USER_ESTABLISHED,
    DREQ_ERROR,
    DREQ_RECEIVED,
    DREP_RECEIVED,
    TIMEWAIT_EXIT,
    MRA_RECEIVED,
    REJ_RECEIVED,
    SIDR_REQ_ERROR,
    SIDR_REQ_RECEIVED,
    SIDR_REP_RECEIVED
}
