package dev.ibex.cm.reactive;

import dev.ibex.cm.spi.CmId;

/**
 * A server's answer to a connection request ({@link RdmaServer#accept}): accept, optionally with private data for
 * the client ({@link RdmaConnection#peerPrivateData()} on its side), or reject with private data saying why (the
 * client's connect fails with {@code RdmaConnectException} REJECTED, status 28, carrying it).
 */
public sealed interface AcceptDecision {

    /**
     * Accept; the client receives {@code privateData} (at most {@value CmId#MAX_ACCEPT_PRIVATE_DATA} bytes).
     *
     * @param privateData sent to the client with the accept (copied; {@code null} for none)
     */
    record Accept(byte[] privateData) implements AcceptDecision {
        /**
         * Copies the private data and checks its size.
         *
         * @throws IllegalArgumentException when {@code privateData} is longer than {@value
         *     CmId#MAX_ACCEPT_PRIVATE_DATA} bytes
         */
        public Accept {
            privateData = checked(privateData, CmId.MAX_ACCEPT_PRIVATE_DATA, "accept");
        }
    }

    /**
     * Reject; the client receives {@code privateData} (at most {@value CmId#MAX_REJECT_PRIVATE_DATA} bytes).
     *
     * @param privateData sent to the client with the reject (copied; {@code null} for none)
     */
    record Reject(byte[] privateData) implements AcceptDecision {
        /**
         * Copies the private data and checks its size.
         *
         * @throws IllegalArgumentException when {@code privateData} is longer than {@value
         *     CmId#MAX_REJECT_PRIVATE_DATA} bytes
         */
        public Reject {
            privateData = checked(privateData, CmId.MAX_REJECT_PRIVATE_DATA, "reject");
        }
    }

    /**
     * Accept without private data.
     *
     * @return the decision
     */
    static AcceptDecision accept() {
        return new Accept(null);
    }

    /**
     * Accept, sending {@code privateData} to the client.
     *
     * @param privateData at most {@value CmId#MAX_ACCEPT_PRIVATE_DATA} bytes ({@code null} for none)
     * @return the decision
     * @throws IllegalArgumentException when {@code privateData} is too long
     */
    static AcceptDecision accept(byte[] privateData) {
        return new Accept(privateData);
    }

    /**
     * Reject without private data (the client sees status 28 and no reason).
     *
     * @return the decision
     */
    static AcceptDecision reject() {
        return new Reject(null);
    }

    /**
     * Reject, sending {@code privateData} (the reason) to the client.
     *
     * @param privateData at most {@value CmId#MAX_REJECT_PRIVATE_DATA} bytes ({@code null} for none)
     * @return the decision
     * @throws IllegalArgumentException when {@code privateData} is too long
     */
    static AcceptDecision reject(byte[] privateData) {
        return new Reject(privateData);
    }

    private static byte[] checked(byte[] data, int limit, String what) {
        byte[] d = data == null ? new byte[0] : data.clone();
        if (d.length > limit) {
            throw new IllegalArgumentException(what + " carries at most " + limit + " bytes of private data, got "
                    + d.length);
        }
        return d;
    }
}
