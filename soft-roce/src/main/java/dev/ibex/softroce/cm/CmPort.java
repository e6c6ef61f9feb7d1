package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.CmMad;
import java.net.InetAddress;

/**
 * What the IB CM needs of one soft device port: its address (= its GID), its CA GUID and its QP1, through which
 * CM MADs go to a remote address's QP1. Received MADs come in through {@link IbCm#receive}.
 */
public interface CmPort {

    /** The port's IP address; its IPv4-mapped form is GID index {@link #gidIndex()} of port {@link #portNum()}. */
    InetAddress address();

    /** GID table index of {@link #address()} on its device port. */
    default int gidIndex() {
        return 0;
    }

    /** The device port (1-based) that holds {@link #address()}. */
    default int portNum() {
        return 1;
    }

    /**
     * The device this port belongs to: listeners are per device (a device may have several addresses, and a
     * request to another address of a listening device reaches the listener, which refuses it with REJ 28).
     */
    default Object deviceKey() {
        return this;
    }

    /** The local CA GUID that REQ/REP carry and REJ TIMEOUT's ARI names. */
    long caGuid();

    /**
     * Sends {@code mad} to QP1 at {@code destination}. Must not block and must not deliver anything to the
     * CM on the calling thread; a MAD that cannot be sent is simply lost (the CM retries).
     */
    void send(InetAddress destination, CmMad mad);
}
