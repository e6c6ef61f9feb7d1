package dev.ibex.samples.cli;

import dev.ibex.cm.RdmaConnectException;

/** The name {@code rdma_event_str} gives the CM event behind a failed attempt, as the C tools print it. */
public final class CmEventName {
    private CmEventName() {}

    /**
     * {@code RDMA_CM_EVENT_REJECTED} and the like; a reason that is no CM event (the endpoint's own deadline, a
     * close) keeps its name ({@code TIMEOUT}, {@code CLOSED}).
     */
    public static String of(RdmaConnectException e) {
        return switch (e.reason()) {
            case TIMEOUT, CLOSED -> e.reason().name();
            default -> "RDMA_CM_EVENT_" + e.reason().name();
        };
    }
}
