package dev.ibex.softroce.transport;

import java.lang.foreign.MemorySegment;

/**
 * A device's QP1 (the GSI) as the CM sees it: send a 256-byte MAD to the QP1 of a remote address, and receive
 * the MADs that arrive at this device. On the wire each MAD is a UD SEND_ONLY to QP 1 with Q_Key 0x80010000 and
 * source QP 1 (a 280-byte RoCEv2 datagram); the port builds and checks that framing.
 *
 * <p>Thread-safety: {@link #send} may be called from any thread. Listeners run on the device's receive thread,
 * one MAD at a time, and must return quickly without blocking.
 */
public interface MadPort {
    /** Bytes in a MAD. */
    int MAD_SIZE = 256;

    /** Receives MADs. */
    @FunctionalInterface
    interface Listener {
        /**
         * One MAD arrived.
         *
         * @param mad the packet's memory; the MAD is the {@value #MAD_SIZE} bytes at {@code offset}. Valid only
         *     during the call: copy what you keep
         * @param offset where the MAD starts in {@code mad}
         * @param localIp the device address it arrived at (IPv4 as an int, see {@code wire.Ipv4})
         * @param remoteIp the sender's address
         */
        void onMad(MemorySegment mad, long offset, int localIp, int remoteIp);
    }

    /**
     * Sends the {@value #MAD_SIZE}-byte MAD at {@code offset} of {@code mad} from local address {@code localIp}
     * (one of this device's) to QP1 at {@code remoteIp}. Best effort, like any UD send: a lost MAD is the CM's
     * retry timer's business.
     *
     * @param localIp  the sending address (IPv4 as an int, see {@code wire.Ipv4})
     * @param remoteIp the destination address
     * @param mad      memory holding the MAD; only read during the call
     * @param offset   where the MAD starts in {@code mad}
     * @throws IllegalArgumentException when {@code localIp} is not an address of this device
     */
    void send(int localIp, int remoteIp, MemorySegment mad, long offset);

    /**
     * Adds a listener; every MAD goes to every listener.
     *
     * @param listener called with each MAD that arrives at this device
     */
    void subscribe(Listener listener);

    /**
     * Removes a listener added with {@link #subscribe}; it may still get a MAD that is being delivered.
     *
     * @param listener the listener to remove
     */
    void unsubscribe(Listener listener);
}
