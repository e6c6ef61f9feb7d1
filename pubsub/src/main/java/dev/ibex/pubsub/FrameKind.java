package dev.ibex.pubsub;

/** What a pub/sub frame carries; the code is the header's kind byte. */
enum FrameKind {
    /** A published message: its sequence number and payload. */
    DATA(1),
    /** "Still here": the last sequence number sent, the heartbeat interval and the heartbeat's own number. */
    HEARTBEAT(2),
    /** A heartbeat that also says the publisher closed: nothing follows this epoch's last sequence number. */
    CLOSE(3);

    private static final FrameKind[] BY_CODE = {null, DATA, HEARTBEAT, CLOSE};

    final int code;

    FrameKind(int code) {
        this.code = code;
    }

    /** The kind of {@code code}, or {@code null} for an unknown code. */
    static FrameKind of(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
