package dev.ibex.bench.faults;

/** What goes wrong in a matrix cell, while its traffic is in flight. */
public enum Fault {
    DROP_1("drop 1 %"),
    DROP_10("drop 10 %"),
    /** 5 % of datagrams held back up to 2 ms and overtaken. */
    REORDER("reorder"),
    /** 5 % of datagrams sent twice. */
    DUPLICATE("duplicate"),
    /** Every datagram 2 ms late. */
    DELAY("delay"),
    /** The path black-holed both ways for a third of the transport's retry bound, then healed. */
    PATH_DOWN_UP("path down, then up"),
    /** The path black-holed both ways for good. */
    PATH_DOWN("path down for good"),
    /** The server's process killed with SIGKILL (it runs in a JVM of its own). */
    KILL_PEER("kill -9 of the peer"),
    /** The server closes its end (connection or datagram endpoint), as an application does. */
    CLOSE_OTHER_SIDE("close from the other side"),
    /** The server's fabric (its device) closed under its live endpoints. */
    DEVICE_CLOSED("peer's device closed");

    private final String title;

    Fault(String title) {
        this.title = title;
    }

    public String title() {
        return title;
    }

    /** Whether it is a rule on every datagram for the whole run (else one event after the traffic started). */
    public boolean steady() {
        return ordinal() <= DELAY.ordinal();
    }
}
