package dev.ibex.cm.spi;

/**
 * A CM event, copied out of {@code struct rdma_cm_event} before the provider acknowledged it.
 *
 * @param type the event
 * @param id the id the event is for; for {@link CmEventType#CONNECT_REQUEST} a new id (on the listener's
 *     channel) that the application must accept, reject or close
 * @param listenId the listening id for {@code CONNECT_REQUEST}, else {@code null}
 * @param status 0, a negative errno (e.g. -110 for a CM timeout), an IB CM reject reason for
 *     {@code REJECTED} (8: nobody listens, 28: the peer rejected) or a SIDR status
 * @param privateData the peer's private data (never {@code null}; empty when none)
 * @param conn for connected events ({@code CONNECT_REQUEST}, {@code ESTABLISHED}, {@code REJECTED}…): the
 *     peer's connection parameters, else {@code null}
 * @param ud for UD events ({@code CONNECT_REQUEST} and {@code ESTABLISHED} on UDP ids, multicast joins):
 *     the remote QPN/Q_Key and address, else {@code null}
 * @param context for multicast events the context given to {@link CmId#joinMulticast}, else {@code null}
 */
public record CmEvent(CmEventType type, CmId id, CmId listenId, int status, byte[] privateData, ConnParam conn,
        UdParam ud, Object context) {
    private static final byte[] NONE = new byte[0];

    /** Replaces {@code null} private data with an empty array. */
    public CmEvent {
        privateData = privateData == null ? NONE : privateData;
    }

    @Override
    public String toString() {
        return "CmEvent[" + type + (status != 0 ? " status=" + status : "") + (privateData.length > 0
                ? " private_data=" + privateData.length + "B" : "") + "]";
    }
}
