package dev.ibex.cm.endpoint;

/**
 * Credit flow control of one connection over a shared receive queue ({@link ReceiveMode#SHARED}), both ways:
 *
 * <ul>
 *   <li>Sending: the peer granted {@code sendCredits} messages; every operation that consumes a receive at the peer
 *       (SEND, SEND with immediate, WRITE with immediate) takes one, and without one it is refused (the connection
 *       is not writable) until the peer returns some.
 *   <li>Receiving: this end granted {@code grant}; each message the application releases is owed back to the
 *       peer, and once a quarter of the grant is owed a credit update goes out.
 * </ul>
 *
 * A credit update is a zero-length SEND with immediate data {@code 0xC5 << 24 | count}: it needs no credit
 * itself (or two ends without credits would wait for each other forever) and the receiver recycles its buffer at
 * once. In credit mode an application cannot send a zero-length message with immediate data whose top byte is
 * 0xC5.
 *
 * <p>When both ends {@link CreditOffer#creditsRide() say so}, an update owed in a turn in which the application sent a
 * plain message (a SEND with bytes and no immediate data: typically the reply to what it consumed) rides in that
 * message instead, as its immediate data: one work request, packet and ACK fewer. The receiver takes the credits and
 * delivers the message without immediate data. Then no message the application sends may carry immediate data with
 * the top byte 0xC5, whatever its length. Loop-confined.
 */
final class Credits {
    static final int UPDATE_TAG = 0xC5;

    private final int grant;
    private final int returnAt;
    private final boolean ride;
    private int sendCredits;
    private int owed;

    /**
     * @param grant what this end granted the peer (its receive window)
     * @param granted what the peer granted this end
     * @param ride whether credits ride in messages (both ends said so)
     */
    Credits(int grant, int granted, boolean ride) {
        this.grant = grant;
        this.ride = ride;
        this.returnAt = Math.max(1, grant / 4);
        this.sendCredits = granted;
    }

    static boolean isUpdate(int length, boolean withImm, int imm) {
        return length == 0 && withImm && imm >>> 24 == UPDATE_TAG;
    }

    /** Whether a received SEND ({@code length} bytes) carries credits in its immediate data. */
    boolean carried(int length, boolean withImm, int imm) {
        return ride && length > 0 && withImm && imm >>> 24 == UPDATE_TAG;
    }

    /** Whether credits ride in messages on this connection. */
    boolean ride() {
        return ride;
    }

    static int count(int imm) {
        return imm & 0xFF_FFFF;
    }

    static int update(int count) {
        return UPDATE_TAG << 24 | count;
    }

    int sendCredits() {
        return sendCredits;
    }

    boolean canSend() {
        return sendCredits > 0;
    }

    /** An operation that consumes a receive at the peer was posted. */
    void spend() {
        sendCredits--;
    }

    /** The peer returned {@code n}. */
    void returned(int n) {
        sendCredits += n;
    }

    /** The application released a message: true when an update should go out now. */
    boolean consumed() {
        return ++owed >= returnAt;
    }

    /** Takes what is owed, for an update. */
    int takeOwed() {
        int n = owed;
        owed = 0;
        return n;
    }

    /** An update could not be sent (queue full): it is still owed. */
    void stillOwed(int n) {
        owed += n;
    }

    int owed() {
        return owed;
    }

    int grant() {
        return grant;
    }
}
