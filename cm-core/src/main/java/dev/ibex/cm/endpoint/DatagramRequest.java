package dev.ibex.cm.endpoint;

import dev.ibex.cm.spi.CmId;
import java.net.InetSocketAddress;

/**
 * A SIDR request received by a listening {@link Datagram}: a remote UD endpoint asks for this service's QP number.
 * Answer from any thread; unanswered requests are rejected after {@link DatagramOptions#requestTimeout()}.
 */
public final class DatagramRequest {
    private final Resolution resolution;

    DatagramRequest(Resolution resolution) {
        this.resolution = resolution;
    }

    /** {@return what the requester sent (a copy)} */
    public byte[] privateData() {
        return resolution.peerData();
    }

    /** {@return the requester's address and port} */
    public InetSocketAddress peerAddress() {
        return resolution.remote();
    }

    /**
     * Answers with this datagram endpoint's QP number and up to {@value CmId#MAX_ACCEPT_PRIVATE_DATA_UDP} bytes.
     *
     * @throws IllegalArgumentException when the private data is too long
     * @param privateData sent with the answer, or {@code null}
     */
    public void accept(byte[] privateData) {
        resolution.answer(Input.ACCEPT, check(privateData, CmId.MAX_ACCEPT_PRIVATE_DATA_UDP, "accept"));
    }

    /**
     * Rejects (the requester sees UNREACHABLE with SIDR status 2).
     *
     * @param privateData sent with the rejection (at most {@value CmId#MAX_REJECT_PRIVATE_DATA} bytes), or {@code null}
     * @throws IllegalArgumentException when the private data is too long
     */
    public void reject(byte[] privateData) {
        resolution.answer(Input.REJECT, check(privateData, CmId.MAX_REJECT_PRIVATE_DATA, "reject"));
    }

    private static byte[] check(byte[] data, int limit, String what) {
        byte[] d = data == null ? new byte[0] : data.clone();
        if (d.length > limit) {
            throw new IllegalArgumentException(what + " of a UD request carries at most " + limit
                    + " bytes of private data, got " + d.length);
        }
        return d;
    }
}
