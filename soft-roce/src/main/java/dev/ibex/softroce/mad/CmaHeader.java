package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The RDMA CM's {@code struct cma_hdr} (36 bytes, IBTA annex A11 "RDMA IP CM Service"), which the RDMA CM
 * puts in front of the user's private data in a REQ and a SIDR_REQ.
 *
 * <pre>
 * 0 cma_version (0) · 1 ip_version (bits 7..4: 4 or 6) · 2 port (16, the active side's source port)
 * 4 source address (16) · 20 destination address (16) — IPv4 as 12 zero bytes + 4 address bytes
 * </pre>
 *
 * @param port the active side's source port
 */
public record CmaHeader(int version, int ipVersion, int port, InetAddress source, InetAddress destination) {
    /** Header length. */
    public static final int SIZE = 36;
    /** {@code CMA_VERSION}. */
    public static final int VERSION = 0;

    public CmaHeader {
        Fields.bits(version, 8, "cma_version");
        Fields.bits(port, 16, "port");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(destination, "destination");
        Class<?> family = switch (ipVersion) {
            case 4 -> Inet4Address.class;
            case 6 -> Inet6Address.class;
            default -> throw new IllegalArgumentException("IP version " + ipVersion + " (4 or 6)");
        };
        if (!family.isInstance(source) || !family.isInstance(destination)) {
            throw new IllegalArgumentException("IPv" + ipVersion + " header with addresses " + source + " and "
                    + destination);
        }
    }

    /** A version-0 header; the IP version follows the addresses' family. */
    public static CmaHeader of(int port, InetAddress source, InetAddress destination) {
        return new CmaHeader(VERSION, source instanceof Inet4Address ? 4 : 6, port, source, destination);
    }

    /** Writes 36 bytes at {@code offset}. */
    public void encode(MemorySegment s, long offset) {
        s.asSlice(offset, SIZE).fill((byte) 0);
        NetworkOrder.u8(s, offset, version);
        NetworkOrder.u8(s, offset + 1, ipVersion << 4);
        NetworkOrder.u16(s, offset + 2, port);
        writeAddress(s, offset + 4, source);
        writeAddress(s, offset + 20, destination);
    }

    /** The header followed by the user's private data, as the REQ/SIDR_REQ private data. */
    public Octets withUserData(Octets userData) {
        byte[] b = new byte[SIZE];
        encode(MemorySegment.ofArray(b), 0);
        return Octets.of(b).concat(userData);
    }

    /** Decodes 36 bytes at {@code offset}; the IP version must be 4 or 6. */
    public static CmaHeader decode(MemorySegment s, long offset) throws MalformedPacketException {
        Fields.require(s, offset, SIZE, "cma_hdr");
        int ipVersion = NetworkOrder.u8(s, offset + 1) >>> 4;
        if (ipVersion != 4 && ipVersion != 6) {
            throw Fields.badField("cma_hdr IP version " + ipVersion);
        }
        return new CmaHeader(NetworkOrder.u8(s, offset), ipVersion, NetworkOrder.u16(s, offset + 2),
                readAddress(s, offset + 4, ipVersion), readAddress(s, offset + 20, ipVersion));
    }

    /** Decodes the header at the start of REQ/SIDR_REQ private data. */
    public static CmaHeader decode(Octets privateData) throws MalformedPacketException {
        return decode(privateData.asSegment(), 0);
    }

    /** The user's part of REQ/SIDR_REQ private data: everything after the 36-byte header. */
    public static Octets userData(Octets privateData) {
        return privateData.length() <= SIZE ? Octets.EMPTY : privateData.slice(SIZE, privateData.length() - SIZE);
    }

    private static void writeAddress(MemorySegment s, long offset, InetAddress address) {
        byte[] b = address.getAddress();
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, offset + 16 - b.length, b.length);
    }

    private static InetAddress readAddress(MemorySegment s, long offset, int ipVersion) {
        int length = ipVersion == 4 ? 4 : 16;
        byte[] b = new byte[length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset + 16 - length, b, 0, length);
        try {
            return ipVersion == 4 ? InetAddress.getByAddress(b) : Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError("fixed-length addresses are always valid", e);
        }
    }
}
