package dev.ibex.softroce.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A UDP port that no socket uses on every one of some local addresses right now: the devices of soft fabrics that
 * talk to each other share one RoCEv2 port (as a fabric shares 4791), so demos and tests that run beside other
 * runs pick one free on all their addresses. Racy by nature (the port is released before use); callers bind soon.
 */
public final class FreePort {
    private static final int ATTEMPTS = 50;

    private FreePort() {}

    /**
     * A port free on all {@code addresses} (at least one), e.g. {@code on("127.0.0.2", "127.0.0.3")}.
     *
     * @param addresses local IP addresses, as literals
     * @return a UDP port no socket was bound to on any of them at the time of the call
     * @throws IllegalArgumentException when no address is given
     * @throws IllegalStateException when 50 attempts found no port free on all of them
     * @throws java.io.UncheckedIOException when the first address cannot be bound at all
     */
    public static int on(String... addresses) {
        if (addresses.length == 0) {
            throw new IllegalArgumentException("name at least one address");
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try (DatagramSocket first = new DatagramSocket(new InetSocketAddress(address(addresses[0]), 0))) {
                int port = first.getLocalPort();
                if (freeOnOthers(addresses, port)) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind UDP on " + addresses[0]
                        + " (loopback addresses 127.0.0.0/8 must be usable)", e);
            }
        }
        throw new IllegalStateException("no UDP port free on all of " + String.join(", ", addresses));
    }

    private static boolean freeOnOthers(String[] addresses, int port) {
        for (int i = 1; i < addresses.length; i++) {
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(address(addresses[i]), port))) {
                // free: closed again at once
            } catch (IOException busy) {
                return false;
            }
        }
        return true;
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (IOException e) {
            throw new UncheckedIOException("not an address: " + ip, e);
        }
    }
}
