package dev.ibex.cm.buffer;

import dev.ibex.cm.spi.Gid;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The 40 bytes in front of every UD receive. On InfiniBand and RoCEv2 over IPv6 they hold an IPv6-style GRH (GIDs
 * at 8 and 24); on RoCEv2 over IPv4 the first 20 bytes are undefined and bytes 20..39 hold the IPv4 header. Which
 * one is decided as libibverbs' {@code ibv_init_ah_from_wc} does: IP version 6 in byte 0 means a GRH unless a valid
 * IPv4 header (IHL 5, correct checksum) sits at byte 20.
 */
final class Grh {
    static final int IPV4_OFFSET = 20;

    private Grh() {}

    /** The sender's GID (IPv4-mapped for RoCEv2 over IPv4). */
    static Gid sourceGid(MemorySegment grh) {
        byte[] raw = new byte[16];
        if (isIpv4(grh)) {
            byte[] v4 = new byte[4];
            MemorySegment.copy(grh, ValueLayout.JAVA_BYTE, IPV4_OFFSET + 12, v4, 0, 4);
            raw[10] = (byte) 0xff;
            raw[11] = (byte) 0xff;
            System.arraycopy(v4, 0, raw, 12, 4);
        } else {
            MemorySegment.copy(grh, ValueLayout.JAVA_BYTE, 8, raw, 0, 16);
        }
        return Gid.of(raw);
    }

    static boolean isIpv4(MemorySegment grh) {
        int ip6Version = (grh.get(ValueLayout.JAVA_BYTE, 0) >> 4) & 0xF;
        int b = grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET);
        int ip4Version = (b >> 4) & 0xF;
        int ihl = b & 0xF;
        if (ip6Version != 6) {
            return ip4Version == 4;
        }
        // the first 20 bytes may be garbage that happens to read as version 6: trust a valid IPv4 header
        return ihl == 5 && ip4Version == 4 && checksum(grh) == 0;
    }

    /** The one's-complement sum over the IPv4 header; 0 when its checksum is right. */
    static int checksum(MemorySegment grh) {
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET + i) & 0xFF) << 8)
                    | (grh.get(ValueLayout.JAVA_BYTE, IPV4_OFFSET + i + 1) & 0xFF);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return ~sum & 0xFFFF;
    }
}
