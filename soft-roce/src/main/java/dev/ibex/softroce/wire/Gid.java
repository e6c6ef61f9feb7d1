package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A 128-bit InfiniBand global identifier. On RoCEv2 a GID is the interface's IP address: IPv6 as is,
 * IPv4 mapped as {@code ::ffff:a.b.c.d} (kernel {@code rdma_ip2gid}). Stored as two big-endian halves.
 *
 * @param high the first 8 bytes, big-endian
 * @param low the last 8 bytes, big-endian
 */
public record Gid(long high, long low) {
    /** Bytes in a GID. */
    public static final int SIZE = 16;
    /** The all-zero GID (e.g. an absent alternate path). */
    public static final Gid ZERO = new Gid(0, 0);

    private static final long V4_MAPPED_PREFIX = 0x0000_FFFFL << 32;

    /** The IPv4-mapped GID {@code ::ffff:a.b.c.d} of an IPv4 address given as an int. */
    public static Gid ofIpv4(int address) {
        return new Gid(0, V4_MAPPED_PREFIX | (address & 0xFFFF_FFFFL));
    }

    /** The GID of an IP address: IPv4-mapped for IPv4, the address itself for IPv6. */
    public static Gid of(InetAddress address) {
        if (address instanceof Inet4Address) {
            return ofIpv4(Ipv4.toInt(address));
        }
        byte[] b = address.getAddress();
        MemorySegment s = MemorySegment.ofArray(b);
        return new Gid(NetworkOrder.u64(s, 0), NetworkOrder.u64(s, 8));
    }

    /** Reads a GID at {@code offset}. */
    public static Gid read(MemorySegment s, long offset) {
        return new Gid(NetworkOrder.u64(s, offset), NetworkOrder.u64(s, offset + 8));
    }

    /** Writes this GID at {@code offset}. */
    public void write(MemorySegment s, long offset) {
        NetworkOrder.u64(s, offset, high);
        NetworkOrder.u64(s, offset + 8, low);
    }

    /** Whether this is {@code ::ffff:a.b.c.d}. */
    public boolean isIpv4Mapped() {
        return high == 0 && (low >>> 32) == 0xFFFF;
    }

    /** The IPv4 address of an IPv4-mapped GID; throws {@link IllegalStateException} otherwise. */
    public int ipv4() {
        if (!isIpv4Mapped()) {
            throw new IllegalStateException(this + " is not an IPv4-mapped GID");
        }
        return (int) low;
    }

    /** The IP address: IPv4 for an IPv4-mapped GID, else IPv6. */
    public InetAddress toInetAddress() {
        if (isIpv4Mapped()) {
            return Ipv4.toInetAddress((int) low);
        }
        byte[] b = new byte[SIZE];
        MemorySegment s = MemorySegment.ofArray(b);
        NetworkOrder.u64(s, 0, high);
        NetworkOrder.u64(s, 8, low);
        try {
            return Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError("16-byte addresses are always valid", e);
        }
    }

    @Override
    public String toString() {
        if (isIpv4Mapped()) {
            return "::ffff:" + Ipv4.toString((int) low);
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            long half = i < 4 ? high : low;
            int group = (int) (half >>> (48 - 16 * (i & 3))) & 0xFFFF;
            if (i > 0) {
                sb.append(':');
            }
            sb.append(Integer.toHexString(group));
        }
        return sb.toString();
    }
}
