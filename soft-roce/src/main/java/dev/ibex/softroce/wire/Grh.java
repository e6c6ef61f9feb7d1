package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The 40-byte "GRH" a RoCEv2/IPv4 UD receive starts with: 20 zero bytes, then the IPv4 header of the datagram
 * (what rxe writes and {@code ibv_init_ah_from_wc} expects).
 *
 * <p>Threading: stateless; the caller owns the segment written.
 */
public final class Grh {
    /** The bytes a GRH takes at the start of a UD receive buffer. */
    public static final int LENGTH = 40;

    private Grh() {}

    /**
     * Writes the GRH of a datagram into {@code grh}: zeros, then an IPv4 header (DF, TTL 64, UDP, checksum).
     *
     * @param grh              at least {@value #LENGTH} bytes to write
     * @param udpPayloadLength the UDP payload's length (the IPv4 total length adds 28 bytes of headers)
     * @param srcIp            the datagram's source IPv4 address as a big-endian int
     * @param dstIp            its destination IPv4 address as a big-endian int
     */
    public static void writeIpv4(MemorySegment grh, int udpPayloadLength, int srcIp, int dstIp) {
        grh.fill((byte) 0);
        int total = 20 + 8 + udpPayloadLength;
        long b = 20;
        grh.set(ValueLayout.JAVA_BYTE, b, (byte) 0x45);
        grh.set(ValueLayout.JAVA_BYTE, b + 2, (byte) (total >>> 8));
        grh.set(ValueLayout.JAVA_BYTE, b + 3, (byte) total);
        grh.set(ValueLayout.JAVA_BYTE, b + 6, (byte) 0x40); // DF
        grh.set(ValueLayout.JAVA_BYTE, b + 8, (byte) 64); // TTL
        grh.set(ValueLayout.JAVA_BYTE, b + 9, (byte) 17); // UDP
        putInt(grh, b + 12, srcIp);
        putInt(grh, b + 16, dstIp);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += ((grh.get(ValueLayout.JAVA_BYTE, b + i) & 0xFF) << 8) | (grh.get(ValueLayout.JAVA_BYTE, b + i + 1)
                    & 0xFF);
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        int check = ~sum & 0xFFFF;
        grh.set(ValueLayout.JAVA_BYTE, b + 10, (byte) (check >>> 8));
        grh.set(ValueLayout.JAVA_BYTE, b + 11, (byte) check);
    }

    private static void putInt(MemorySegment grh, long at, int v) {
        grh.set(ValueLayout.JAVA_BYTE, at, (byte) (v >>> 24));
        grh.set(ValueLayout.JAVA_BYTE, at + 1, (byte) (v >>> 16));
        grh.set(ValueLayout.JAVA_BYTE, at + 2, (byte) (v >>> 8));
        grh.set(ValueLayout.JAVA_BYTE, at + 3, (byte) v);
    }
}
