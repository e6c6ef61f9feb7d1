package dev.ibex.softroce.cm;

/** The consumer of an IB CM id's events ({@code ib_cm_handler}). */
@FunctionalInterface
public interface IbCmHandler {
    /**
     * Handles an event; called with the CM lock held, after the id's state changed.
     *
     * @return 0, or a negative errno to have the CM destroy the id (as after REQ_RECEIVED: REJ 28, or no
     *     answer at all for -ENOMEM so that the peer retries)
     */
    int handle(IbCmEvent event);
}
