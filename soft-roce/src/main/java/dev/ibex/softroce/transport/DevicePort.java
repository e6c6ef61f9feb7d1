package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.Gid;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One physical port of a soft device: its GID table (one IPv4 address per entry), one {@link Link} per address,
 * and its state. A port taken DOWN ({@link SoftDevice#setPortActive}) is an unplugged cable: nothing leaves or
 * arrives through its links until it is ACTIVE again, and QPs whose alternate path starts here cannot migrate to it
 * (PATH_MIG_ERR). The gate costs one volatile read per datagram.
 *
 * <p>Thread-safe: the state is a volatile flag; links are written once at open.
 */
final class DevicePort {
    private final int number;
    private final int[] addresses;
    private final Gid[] gids;
    private final Link[] links;
    private volatile boolean active = true;

    DevicePort(int number, int[] addresses) {
        this.number = number;
        this.addresses = addresses.clone();
        this.gids = new Gid[addresses.length];
        for (int i = 0; i < addresses.length; i++) {
            gids[i] = Gid.of(Ipv4.toInetAddress(addresses[i]));
        }
        this.links = new Link[addresses.length];
    }

    int number() {
        return number;
    }

    int[] addresses() {
        return addresses;
    }

    int gidCount() {
        return gids.length;
    }

    Gid gid(int index) {
        return gids[index];
    }

    /** The GID index of {@code ip} on this port, or -1. */
    int indexOf(int ip) {
        for (int i = 0; i < addresses.length; i++) {
            if (addresses[i] == ip) {
                return i;
            }
        }
        return -1;
    }

    Link link(int index) {
        return links[index];
    }

    boolean isActive() {
        return active;
    }

    /** Sets the state; whether it changed. */
    boolean setActive(boolean up) {
        boolean was = active;
        active = up;
        return was != up;
    }

    /** Opens the link of GID index {@code index}, gated by this port's state both ways. */
    Link open(int index, Link.Factory factory, int udpPort, Link.Handler handler) {
        Link.Handler gated = (MemorySegment segment, long offset, int length, int srcIp, int srcPort, int dstIp) -> {
            if (active) {
                handler.onPacket(segment, offset, length, srcIp, srcPort, dstIp);
            }
        };
        Link raw = factory.open(addresses[index], udpPort, gated);
        links[index] = new Gated(raw);
        return links[index];
    }

    /** Closes the links opened so far. */
    void close() {
        for (Link l : links) {
            if (l != null) {
                l.close();
            }
        }
    }

    List<String> describe() {
        List<String> a = new ArrayList<>();
        for (int ip : addresses) {
            a.add(Ipv4.toString(ip));
        }
        return a;
    }

    /** A link that sends nothing while the port is down. */
    private final class Gated implements Link {
        private final Link raw;

        Gated(Link raw) {
            this.raw = raw;
        }

        @Override
        public int address() {
            return raw.address();
        }

        @Override
        public int port() {
            return raw.port();
        }

        @Override
        public void send(ByteBuffer datagram, int dstIp, InetSocketAddress destination) {
            if (active) {
                raw.send(datagram, dstIp, destination);
            }
        }

        @Override
        public void sendSegments(ByteBuffer datagrams, int segmentSize, int dstIp, InetSocketAddress destination) {
            if (active) {
                raw.sendSegments(datagrams, segmentSize, dstIp, destination);
            }
        }

        @Override
        public void joinMulticast(int group) {
            raw.joinMulticast(group);
        }

        @Override
        public void leaveMulticast(int group) {
            raw.leaveMulticast(group);
        }

        @Override
        public int netdevMtu() {
            return raw.netdevMtu();
        }

        @Override
        public Link network() {
            return raw.network();
        }

        @Override
        public void close() {
            raw.close();
        }
    }
}
