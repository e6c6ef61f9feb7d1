package dev.ibex.pubsub;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How topics map onto IPv4 multicast groups: an explicit group per topic where one was given ({@link #with}), else
 * a hash of the topic name into a range of groups ({@link #hashed}). Several topics may share a group: every frame
 * carries its topic's id, and a subscriber counts other topics' frames ({@code foreign}) without delivering them —
 * so a range trades the number of groups joined (one UD QP and, on Linux, one IGMP membership each) for traffic a
 * subscriber receives only to drop. Publisher and subscribers must use the same mapping. Immutable.
 *
 * <p>The default, {@code hashed("239.192.0.0/20")}: 4,096 groups in the IPv4 organization-local scope (RFC 2365),
 * below the 8,192 groups a soft-roce or rxe device supports.
 */
public final class TopicGroups {
    /** The default range. */
    public static final TopicGroups DEFAULT = hashed("239.192.0.0/20");

    private final int base;
    private final int size;
    private final Map<String, InetSocketAddress> explicit;

    private TopicGroups(int base, int size, Map<String, InetSocketAddress> explicit) {
        this.base = base;
        this.size = size;
        this.explicit = Map.copyOf(explicit);
    }

    /**
     * Topics hashed into the groups of {@code cidr} ({@code "239.192.0.0/20"}): group = first address + (topic id mod
     * the number of addresses). The range must lie in 224.0.0.0/4 and hold at least one address.
     *
     * @param cidr an IPv4 multicast range as address/prefix-bits, prefix 4 to 32
     * @return the mapping
     * @throws IllegalArgumentException when {@code cidr} is malformed or not inside 224.0.0.0/4
     */
    public static TopicGroups hashed(String cidr) {
        Objects.requireNonNull(cidr, "cidr");
        int slash = cidr.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("a group range is address/bits, e.g. 239.192.0.0/20, not " + cidr);
        }
        int bits;
        try {
            bits = Integer.parseInt(cidr.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length in " + cidr);
        }
        if (bits < 4 || bits > 32) {
            throw new IllegalArgumentException("a multicast range has a prefix of 4 to 32 bits, not " + bits);
        }
        int first = ipv4(cidr.substring(0, slash)) & (bits == 32 ? -1 : ~(-1 >>> bits));
        if ((first >>> 28) != 0xE) {
            throw new IllegalArgumentException(cidr + " is not an IPv4 multicast range (224.0.0.0/4)");
        }
        return new TopicGroups(first, bits == 32 ? 1 : 1 << (32 - bits), Map.of());
    }

    /**
     * Every topic on one group (all told apart by topic id).
     *
     * @param group an IPv4 multicast address
     * @return the mapping that puts every topic on {@code group}
     * @throws IllegalArgumentException when {@code group} is not an IPv4 multicast address
     */
    public static TopicGroups single(String group) {
        return hashed(group + "/32");
    }

    /**
     * This mapping, with {@code topic} on {@code group} (an IPv4 multicast address).
     *
     * @param topic the topic's name
     * @param group the group's IPv4 multicast address
     * @return a new mapping; this one is unchanged
     * @throws IllegalArgumentException when the name is empty or too long, or {@code group} is not IPv4 multicast
     */
    public TopicGroups with(String topic, String group) {
        Topic.checkName(Objects.requireNonNull(topic, "topic"));
        InetSocketAddress g = new InetSocketAddress(address(Objects.requireNonNull(group, "group")), 0);
        checkGroup(g);
        Map<String, InetSocketAddress> m = new HashMap<>(explicit);
        m.put(topic, g);
        return new TopicGroups(base, size, m);
    }

    /**
     * The topic called {@code name}, on its group.
     *
     * @param name 1 to {@value Topic#MAX_NAME_BYTES} bytes of UTF-8
     * @return the topic, with its id and its group (the explicit one, else the hashed one)
     * @throws IllegalArgumentException when the name is empty or too long
     */
    public Topic topic(String name) {
        Objects.requireNonNull(name, "name");
        Topic.checkName(name);
        InetSocketAddress g = explicit.get(name);
        int id = Topic.idOf(name);
        if (g == null) {
            int ip = base + (int) (Integer.toUnsignedLong(id) % size);
            g = new InetSocketAddress(toAddress(ip), 0);
        }
        return new Topic(name, id, g);
    }

    /** Refuses what is not an IPv4 multicast group (with the reason). */
    static void checkGroup(InetSocketAddress group) {
        InetAddress a = group.getAddress();
        if (a == null) {
            throw new IllegalArgumentException(group + " is unresolved: give a multicast group address");
        }
        if (!(a instanceof Inet4Address) || !a.isMulticastAddress()) {
            throw new IllegalArgumentException(a.getHostAddress() + " is not an IPv4 multicast group (224.0.0.0/4;"
                    + " RoCEv2 carries no IPv6 groups)");
        }
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + text, e);
        }
    }

    private static int ipv4(String text) {
        if (!(address(text) instanceof Inet4Address v4)) {
            throw new IllegalArgumentException(text + " is not an IPv4 address");
        }
        byte[] b = v4.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    private static InetAddress toAddress(int ip) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8),
                    (byte) ip});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        return "TopicGroups[" + toAddress(base).getHostAddress() + " + " + size + " groups"
                + (explicit.isEmpty() ? "" : ", explicit " + explicit.keySet()) + "]";
    }
}
