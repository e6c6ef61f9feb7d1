package dev.ibex.cm.spi;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 128-bit global identifier. On RoCEv2 a GID is the port's IP address: IPv6 as is, IPv4 mapped as
 * {@code ::ffff:a.b.c.d}.
 */
public final class Gid {
    /** The all-zero GID: an unset or unpopulated table entry. */
    public static final Gid ZERO = new Gid(new byte[16]);

    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    /**
     * A GID from its 16 raw bytes (copied).
     *
     * @param raw the bytes, in network order
     * @return the GID
     * @throws IllegalArgumentException when there are not 16 bytes
     */
    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + raw.length);
        }
        return new Gid(raw.clone());
    }

    /**
     * The RoCEv2 GID of an IP address (IPv4-mapped for IPv4).
     *
     * @param address an IPv4 or IPv6 address
     * @return the GID
     */
    public static Gid of(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 16) {
            return new Gid(a);
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(a, 0, g, 12, 4);
        return new Gid(g);
    }

    /** {@return a copy of the raw bytes} */
    public byte[] raw() {
        return raw.clone();
    }

    /**
     * Raw byte {@code i} (0..15) without copying.
     *
     * @param i the byte's index, 0 to 15
     * @return the byte
     */
    public byte byteAt(int i) {
        return raw[i];
    }

    /** {@return whether this is an IPv4-mapped GID ({@code ::ffff:a.b.c.d})} */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    /** {@return the IP address this GID encodes ({@link Inet4Address} when IPv4-mapped)} */
    public InetAddress toInetAddress() {
        try {
            if (isIpv4Mapped()) {
                return InetAddress.getByAddress(Arrays.copyOfRange(raw, 12, 16));
            }
            return Inet6Address.getByAddress(null, raw.clone(), null);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        if (isIpv4Mapped()) {
            return "::ffff:" + toInetAddress().getHostAddress();
        }
        String h = HexFormat.of().formatHex(raw);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i += 4) {
            sb.append(i == 0 ? "" : ":").append(h, i, i + 4);
        }
        return sb.toString();
    }
}
