package dev.ibex.softroce.transport;

/**
 * Datagrams a device dropped on arrival, by reason (a snapshot; every counter only grows).
 *
 * @param malformed not valid RoCEv2 (structure, TVer, P_Key) or a bad ICRC
 * @param unknownQp addressed to no QP of the device
 * @param offPath RC packets and CM MADs that did not come from their connection's path (IP address and UDP port):
 *     forged, or from a peer that is not the connection's
 * @param wrongTransport packets of another service type than the QP they name (a UD packet to an RC QP or the other
 *     way round; rxe's check_type_state)
 */
public record DropCounts(long malformed, long unknownQp, long offPath, long wrongTransport) {

    /** Every drop, whatever the reason. */
    public long total() {
        return malformed + unknownQp + offPath + wrongTransport;
    }
}
