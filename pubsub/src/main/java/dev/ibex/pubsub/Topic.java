package dev.ibex.pubsub;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A topic: its name, its 32-bit id (FNV-1a of the name's UTF-8 bytes, carried in every frame) and the multicast
 * group its traffic goes to ({@link TopicGroups} decides which).
 *
 * @param name  1 to {@value #MAX_NAME_BYTES} bytes of UTF-8
 * @param id    what frames carry: subscribers of topics that share a group tell their frames apart by it
 * @param group the IPv4 multicast group
 */
public record Topic(String name, int id, InetSocketAddress group) {
    /** The longest topic name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException when the name is empty or longer than {@value #MAX_NAME_BYTES} bytes of UTF-8,
     *     or
     * the group is not an IPv4 multicast address
     */
    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(group, "group");
        checkName(name);
        TopicGroups.checkGroup(group);
    }

    /** {@code name} on {@code group}, with the id derived from the name. */
    static Topic of(String name, InetSocketAddress group) {
        return new Topic(name, idOf(name), group);
    }

    /** FNV-1a (32 bit) of the name's UTF-8 bytes. */
    static int idOf(String name) {
        int h = 0x811C9DC5;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xFF;
            h *= 0x01000193;
        }
        return h;
    }

    static String checkName(String name) {
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a topic name has 1 to " + MAX_NAME_BYTES + " bytes of UTF-8, \""
                    + name + "\" has " + bytes);
        }
        return name;
    }

    @Override
    public String toString() {
        return name + "@" + group.getAddress().getHostAddress();
    }
}
