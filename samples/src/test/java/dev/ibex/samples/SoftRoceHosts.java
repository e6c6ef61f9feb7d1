package dev.ibex.samples;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Two soft-roce "hosts" on loopback for a sample to talk to itself: the server's fabric has one device on
 * {@value #SERVER}, the client's on {@value #CLIENT}, both on a UDP port free on both addresses (not 4791, which a
 * kernel rxe may own), with the CM's fast timers.
 */
public final class SoftRoceHosts {
    public static final String SERVER = "127.0.0.3";
    public static final String CLIENT = "127.0.0.2";

    private final int port;

    private SoftRoceHosts(int port) {
        this.port = port;
    }

    /** Picks a UDP port that is free on both addresses now. */
    public static SoftRoceHosts pick() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int p = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            if (free(SERVER, p) && free(CLIENT, p)) {
                return new SoftRoceHosts(p);
            }
        }
        throw new IllegalStateException("no UDP port free on both " + SERVER + " and " + CLIENT);
    }

    private static boolean free(String ip, int port) {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(ip, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public int port() {
        return port;
    }

    /** {@code args} followed by the server fabric's options. */
    public List<String> server(String... args) {
        return with("srv=" + SERVER, args);
    }

    /** {@code args} followed by the client fabric's options. */
    public List<String> client(String... args) {
        return with("cli=" + CLIENT, args);
    }

    private List<String> with(String devices, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--provider", "soft-roce", "--timeout", "60", "-D", "ibex.softroce.devices=" + devices,
                "-D", "ibex.softroce.port=" + port, "-D", "ibex.softroce.cm.timings=fast"));
        return all;
    }
}
