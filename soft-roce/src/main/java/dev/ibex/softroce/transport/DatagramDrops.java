package dev.ibex.softroce.transport;

/**
 * Datagrams a UD QP received and dropped, by reason (a racy snapshot; every counter only grows). UD does not recover
 * loss, so these are what a receiver must add to the network's losses to account for every datagram sent.
 *
 * @param badQkey the datagram's Q_Key was not the QP's
 * @param noReceive no receive was posted (the receiver fell behind)
 * @param tooLong the datagram and its 40-byte GRH did not fit the receive posted
 */
public record DatagramDrops(long badQkey, long noReceive, long tooLong) {

    /** Every drop, whatever the reason. */
    public long total() {
        return badQkey + noReceive + tooLong;
    }
}
