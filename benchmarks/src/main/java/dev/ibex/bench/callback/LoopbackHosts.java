package dev.ibex.bench.callback;

import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.net.FreePort;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * Two soft-roce "hosts" on loopback in one process: the server's group has one soft device on {@value #SERVER},
 * the client's on {@value #CLIENT}, both on a UDP port free on both addresses (never 4791, which a kernel rxe may
 * own). The raw baselines bind the same two addresses.
 */
public final class LoopbackHosts {
    public static final String SERVER = "127.0.0.3";
    public static final String CLIENT = "127.0.0.2";

    private LoopbackHosts() {
    }

    public static InetAddress server() {
        return address(SERVER);
    }

    public static InetAddress client() {
        return address(CLIENT);
    }

    /** The soft-roce sides, their UDP port picked now; the server listens on RDMA CM port {@code cmPort}. */
    public static Sides softRoce(int cmPort) {
        return softRoce(cmPort, 0);
    }

    /**
     * The soft-roce sides whose loops spin for {@code spinNanos} (reading their sockets and CQs, soft-roce's
     * {@code poller.spinNanos}) before they block; the server listens on RDMA CM port {@code cmPort}.
     */
    public static Sides softRoce(int cmPort, long spinNanos) {
        return softRoce(cmPort, spinNanos, -1);
    }

    /**
     * The soft-roce sides as {@link #softRoce(int, long)}, whose loops without a fixed spin adapt theirs up to
     * {@code adaptiveSpinNanos} (soft-roce's {@code poller.adaptiveSpinNanos}; 0: they block at once, -1: the default).
     */
    public static Sides softRoce(int cmPort, long spinNanos, long adaptiveSpinNanos) {
        int udp = FreePort.on(SERVER, CLIENT);
        return Sides.twoFabrics("soft-roce", config("srv=" + SERVER, udp, spinNanos, adaptiveSpinNanos),
                config("cli=" + CLIENT, udp, spinNanos, adaptiveSpinNanos), new InetSocketAddress(server(), cmPort));
    }

    private static ProviderConfig config(String devices, int port, long spinNanos, long adaptiveSpinNanos) {
        Map<String, String> m = new java.util.HashMap<>(Map.of("ibex.softroce.devices", devices, "ibex.softroce.port",
                Integer.toString(port), "ibex.softroce.poller.spinNanos", Long.toString(spinNanos)));
        if (adaptiveSpinNanos >= 0) {
            m.put("ibex.softroce.poller.adaptiveSpinNanos", Long.toString(adaptiveSpinNanos));
        }
        return ProviderConfig.of(m);
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
