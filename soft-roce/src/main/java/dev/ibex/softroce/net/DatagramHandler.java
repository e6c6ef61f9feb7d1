package dev.ibex.softroce.net;

/**
 * Receives the datagrams of a {@link SoftPort}. Never called concurrently for one port (see the package
 * documentation for the threads that may call it).
 */
@FunctionalInterface
public interface DatagramHandler {
    /**
     * One datagram. The buffer is valid until this method returns and is then reused, unless the handler
     * calls {@link PacketBuffer#retain()}, in which case it must {@link PacketBuffer#release()} it later.
     * Exceptions are logged and otherwise ignored.
     *
     * @param datagram the received datagram, lent for the duration of the call
     */
    void onDatagram(PacketBuffer datagram);
}
