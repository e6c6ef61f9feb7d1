package dev.ibex.softroce.cm;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.PortSpace;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The RDMA CM's port spaces ({@code cma_ps_find}, {@code cma_get_port}): which ids own which port of a port
 * space. Binding port 0 picks a random free port of the ephemeral range ({@code ip_local_port_range}); a
 * specific port is shared only as {@code cma_check_port} allows: both ids REUSEADDR, or different address
 * families with AFONLY, or different specific addresses. Overlapping a wildcard bind is EADDRNOTAVAIL, the same
 * address EADDRINUSE. Not thread-safe: callers hold the CM lock.
 */
final class PortBindings {
    private record Key(PortSpace space, int port) {}

    private final Map<Key, List<SoftCmId>> owners = new HashMap<>();
    private final Random random;
    private final int low;
    private final int high;

    PortBindings(Random random) {
        this.random = random;
        int[] range = ephemeralRange();
        this.low = range[0];
        this.high = range[1];
    }

    /** {@code /proc/sys/net/ipv4/ip_local_port_range}, else Linux's default 32768–60999. */
    private static int[] ephemeralRange() {
        try {
            String[] f = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            int lo = Integer.parseInt(f[0]);
            int hi = Integer.parseInt(f[1]);
            if (lo > 0 && hi >= lo && hi <= 65535) {
                return new int[] {lo, hi};
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or no procfs: the default range
        }
        return new int[] {32768, 60999};
    }

    /** Binds {@code id} (whose address is set) to {@code port}, or to a free ephemeral port when 0; returns it. */
    int bind(SoftCmId id, int port) {
        if (port == 0) {
            int n = high - low + 1;
            int rover = low + random.nextInt(n);
            for (int i = 0; i < n; i++) {
                int p = low + (rover - low + i) % n;
                Key k = new Key(id.portSpace(), p);
                if (!owners.containsKey(k)) {
                    owners.computeIfAbsent(k, x -> new ArrayList<>()).add(id);
                    return p;
                }
            }
            throw new RdmaException("rdma_bind_addr", Errno.EADDRNOTAVAIL, "no free port in " + low + "-" + high
                    + " of " + id.portSpace());
        }
        Key k = new Key(id.portSpace(), port);
        List<SoftCmId> list = owners.get(k);
        if (list != null) {
            Errno e = conflict(list, id, id.reuseAddr());
            if (e != null) {
                throw new RdmaException("rdma_bind_addr", e, describe(e, id, port));
            }
        }
        owners.computeIfAbsent(k, x -> new ArrayList<>()).add(id);
        return port;
    }

    /** {@code cma_check_port} with REUSEADDR off, as {@code rdma_listen} does for a REUSEADDR id. */
    Errno checkUnique(SoftCmId id, int port) {
        List<SoftCmId> list = owners.get(new Key(id.portSpace(), port));
        return list == null ? null : conflict(list, id, false);
    }

    void release(SoftCmId id, int port) {
        Key k = new Key(id.portSpace(), port);
        List<SoftCmId> list = owners.get(k);
        if (list != null) {
            list.remove(id);
            if (list.isEmpty()) {
                owners.remove(k);
            }
        }
    }

    private static Errno conflict(List<SoftCmId> list, SoftCmId id, boolean reuse) {
        InetAddress addr = id.boundAddress();
        for (SoftCmId cur : list) {
            if (cur == id) {
                continue;
            }
            if (reuse && cur.reuseAddr()) {
                continue;
            }
            InetAddress curAddr = cur.boundAddress();
            if (id.afOnly() && cur.afOnly() && (addr instanceof Inet4Address) != (curAddr instanceof Inet4Address)) {
                continue;
            }
            if (addr.isAnyLocalAddress() || curAddr.isAnyLocalAddress()) {
                return Errno.EADDRNOTAVAIL;
            }
            if (addr.equals(curAddr)) {
                return Errno.EADDRINUSE;
            }
        }
        return null;
    }

    private static String describe(Errno e, SoftCmId id, int port) {
        return e == Errno.EADDRINUSE
                ? id.portSpace() + " port " + port + " is already bound to " + id.boundAddress().getHostAddress()
                        + "; pick another port or set REUSEADDR on both ids"
                : id.portSpace() + " port " + port + " overlaps a wildcard binding of the same port";
    }

    int size() {
        return owners.size();
    }
}
