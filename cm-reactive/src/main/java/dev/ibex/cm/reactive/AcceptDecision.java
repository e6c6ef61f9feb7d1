package dev.ibex.cm.reactive;

import dev.ibex.cm.spi.CmId;

/**
 * A server's answer to a connection request ({@link RdmaServer#accept}): accept, optionally with private data for
 * the client ({@link RdmaConnection#peerPrivateData()} on its side), or reject with private data saying why (the
 * client's connect fails with {@code RdmaConnectException} REJECTED, status 28, carrying it).
 */
public sealed interface AcceptDecision {

    /** Accept; the client receives {@code privateData} (at most {@value CmId#MAX_ACCEPT_PRIVATE_DATA} bytes). */
    record Accept(byte[] privateData) implements AcceptDecision {
        public Accept {
            privateData = checked(privateData, CmId.MAX_ACCEPT_PRIVATE_DATA, "accept");
        }
    }

    /** Reject; the client receives {@code privateData} (at most {@value CmId#MAX_REJECT_PRIVATE_DATA} bytes). */
    record Reject(byte[] privateData) implements AcceptDecision {
        public Reject {
            privateData = checked(privateData, CmId.MAX_REJECT_PRIVATE_DATA, "reject");
        }
    }

    static AcceptDecision accept() {
        return new Accept(null);
    }

    static AcceptDecision accept(byte[] privateData) {
        return new Accept(privateData);
    }

    static AcceptDecision reject() {
        return new Reject(null);
    }

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
