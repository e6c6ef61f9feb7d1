package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.CmMessage;

/**
 * An event of an IB CM id ({@code struct ib_cm_event}).
 *
 * @param id the id it concerns; for REQ_RECEIVED/SIDR_REQ_RECEIVED a new id
 * @param listenId the listener for REQ_RECEIVED/SIDR_REQ_RECEIVED, else {@code null}
 * @param message the received message the event reports, or {@code null} (timers, COMM_EST)
 */
public record IbCmEvent(IbCmEventType type, IbCmId id, IbCmId listenId, CmMessage message) {}
