package dev.ibex.samples.first;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import java.net.Inet4Address;

/** The first IPv4 address of an opened fabric's devices: where a sample listens when not told. */
final class DeviceAddress {
    private DeviceAddress() {}

    static String first(EventLoopGroup loops) {
        for (DeviceContext d : loops.fabric().devices()) {
            int n = d.queryPort(1).gidTableLength();
            for (int i = 0; i < n; i++) {
                try {
                    Gid g = d.queryGid(1, i);
                    if (g.isIpv4Mapped() && g.toInetAddress() instanceof Inet4Address a) {
                        return a.getHostAddress();
                    }
                } catch (RuntimeException unpopulated) {
                    // skip empty GID entries
                }
            }
        }
        throw new IllegalStateException("no device of " + loops.fabric().providerName()
                + " has an IPv4 address: pass --host");
    }
}
