package dev.ibex.softroce.wire;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IPv4 addresses as {@code int}s in network order (the first octet in the top byte), the form the packet
 * builder, parser and ICRC take so that the data path passes no objects.
 */
public final class Ipv4 {
    private Ipv4() {
    }

    /** The address as an int; throws {@link IllegalArgumentException} for an IPv6 address. */
    public static int toInt(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("not an IPv4 address: " + address);
        }
        byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** The {@link Inet4Address} of an int address. */
    public static Inet4Address toInetAddress(int address) {
        byte[] b = {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError("4-byte addresses are always valid", e);
        }
    }

    /** Dotted-quad text, e.g. {@code "127.0.0.2"}. */
    public static String toString(int address) {
        return (address >>> 24) + "." + ((address >>> 16) & 0xFF) + "." + ((address >>> 8) & 0xFF) + "."
                + (address & 0xFF);
    }

    /** Whether the address is in 224.0.0.0/4. */
    public static boolean isMulticast(int address) {
        return (address >>> 28) == 0xE;
    }
}
