package dev.ibex.softroce.transport;

/**
 * What soft-roce counts per QP and sums per device for metrics ({@link SoftDevice#count(QpCounter)}): each a
 * monotonic count, named as {@link dev.ibex.cm.spi.RdmaCounter} names are.
 */
public enum QpCounter {
    /** Go-back-N retries of the send side (retransmit timeouts, PSN-sequence NAKs, RNR NAKs). */
    RETRANSMISSIONS("retransmissions", "times a requester went back to its oldest unacknowledged PSN and resent"),
    /** Retransmit timer expiries. */
    RETRANSMIT_TIMEOUTS("retransmit.timeouts", "retransmit timer expiries (a request or its ACK was lost)"),
    /** Retransmit timer expiries put off because the loop reading the sockets was behind (no retry counted). */
    RETRANSMIT_TIMEOUTS_PUT_OFF("retransmit.timeouts.put.off", "retransmit timer expiries put off, not counted: the "
            + "loop reading the sockets had fallen behind, the response may have been waiting there"),
    /** RNR NAKs received: the peer had no receive posted. */
    RNR_NAKS_RECEIVED("rnr.naks.received", "RNR NAKs received: the peer had no receive posted"),
    /** RNR NAKs sent: a request found no receive posted here. */
    RNR_NAKS_SENT("rnr.naks.sent", "RNR NAKs sent: a request found no receive posted"),
    /** Requests ahead of the expected PSN (a packet before them was lost). */
    OUT_OF_SEQUENCE("out.of.sequence", "requests that arrived ahead of the expected PSN (a packet before was lost)"),
    /** Requests received again (retransmissions of what had been executed). */
    DUPLICATES("duplicates", "requests received again (retransmissions of what had already been executed)"),
    /** Responses dropped for a PSN ahead of every request sent. */
    INVALID_RESPONSES("invalid.responses", "responses dropped for a PSN ahead of every request sent"),
    /** Automatic path migrations (PATH_MIG). */
    PATH_MIGRATIONS("path.migrations", "automatic path migrations to the alternate path"),
    /** UD datagrams dropped at their QP (no receive, bad Q_Key, too long). */
    DATAGRAM_DROPS("drops.datagram", "UD datagrams dropped at their QP (no receive posted, bad Q_Key, too long)");

    private final String counterName;
    private final String description;

    QpCounter(String counterName, String description) {
        this.counterName = counterName;
        this.description = description;
    }

    /** The counter's name ({@link dev.ibex.cm.spi.RdmaCounter#name()}). */
    public String counterName() {
        return counterName;
    }

    /** What is counted, in one sentence. */
    public String description() {
        return description;
    }
}
