package dev.ibex.softroce.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One address of a soft device on the network (one GID-table entry): sends RoCEv2 UDP payloads from that
 * address and hands the ones that arrive at it to the device's {@link Handler}. The network layer implements it
 * (sockets, fault injection, pcap); the verbs never touch a socket.
 *
 * <p>Thread-safety: {@link #send} is called concurrently by posting threads, NIC threads and timers. Handlers run
 * on the link's receive thread, one datagram at a time.
 */
public interface Link extends AutoCloseable {

    /** Receives datagrams. */
    @FunctionalInterface
    interface Handler {
        /**
         * A UDP payload arrived: {@code [offset, offset + length)} of {@code segment}, valid only during the call.
         *
         * @param srcIp the sender's IPv4 address as an int (network order, first octet on top)
         * @param srcPort the sender's UDP port
         * @param dstIp the address it was sent to (this link's, or a multicast group)
         */
        void onPacket(java.lang.foreign.MemorySegment segment, long offset, int length, int srcIp, int srcPort,
                int dstIp);
    }

    /** Opens links for a device. */
    @FunctionalInterface
    interface Factory {
        /** Binds {@code address:port} and starts delivering what arrives there to {@code handler}. */
        Link open(int address, int port, Handler handler);
    }

    /** The local IPv4 address (as an int). */
    int address();

    /** The local UDP port (the fabric's port). */
    int port();

    /**
     * Sends the UDP payload between {@code datagram}'s position and limit to {@code dstIp} (also given as a
     * socket address, so the caller can cache it and nothing is allocated). Never blocks for long; a datagram the
     * kernel cannot take is lost, as on a wire.
     */
    void send(ByteBuffer datagram, int dstIp, InetSocketAddress destination);

    /**
     * Sends the UDP payloads laid end to end between {@code datagrams}' position and limit, each
     * {@code segmentSize} bytes but the last (which may be shorter), to {@code dstIp}: in one system call where
     * the network layer can (UDP segmentation offload), else one {@link #send} each. Position and limit are as
     * they were on return.
     */
    default void sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
        int start = datagrams.position(), end = datagrams.limit();
        try {
            for (int at = start; at < end; at += segmentSize) {
                datagrams.limit(Math.min(end, at + segmentSize)).position(at);
                send(datagrams, dstIp, destination);
            }
        } finally {
            datagrams.limit(end).position(start);
        }
    }

    /**
     * Joins IPv4 multicast group {@code group} on this address's interface: datagrams sent to the group (and the
     * fabric's port) then reach the handler with {@code dstIp} = the group.
     *
     * @throws dev.ibex.cm.RdmaException when the group cannot be joined
     */
    void joinMulticast(int group);

    /** Leaves {@code group} (no-op when not joined). */
    void leaveMulticast(int group);

    /** The netdev MTU of the interface that owns the address (e.g. 65536 on lo). */
    int netdevMtu();

    /**
     * The network layer's link under any gate the device put around it (the provider hands its socket to an event
     * loop, see {@link InlineReception}).
     *
     * @return the innermost link
     */
    default Link network() {
        return this;
    }

    /** Stops receiving and releases the socket. */
    @Override
    void close();
}
