package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import static dev.ibex.verbs.ffi.constant.AddressFamily.AF_INET;
import static dev.ibex.verbs.ffi.constant.AddressFamily.AF_INET6;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * {@code struct sockaddr}: the generic socket address header; {@link #read} and {@link #write} convert
 * between any IPv4/IPv6 {@code sockaddr} and {@link java.net.InetSocketAddress}.
 */
public final class Sockaddr {
    /** {@code struct sockaddr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("sa_family"),
            chars("sa_data", 14))
            .withName("sockaddr");
    /** {@code sizeof(struct sockaddr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct sockaddr, sa_family)}. */
    public static final long OFFSET_SA_FAMILY = offset(LAYOUT, "sa_family");

    private Sockaddr() {
    }

    public static int saFamily(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_SA_FAMILY));
    }

    public static void saFamily(MemorySegment s, int v) {
        s.set(U16, OFFSET_SA_FAMILY, (short) v);
    }

    /**
     * Writes {@code address} as a {@code sockaddr_in} or {@code sockaddr_in6} at the start of {@code s},
     * which must hold {@link SockaddrStorage#SIZE} bytes or at least the size of the chosen form.
     *
     * @return the number of bytes written ({@code socklen_t})
     * @throws IllegalArgumentException for an unresolved address
     */
    public static int write(MemorySegment s, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address) {
            s.asSlice(0, SockaddrIn.SIZE).fill((byte) 0);
            SockaddrIn.sinFamily(s, AF_INET);
            SockaddrIn.sinPort(s, address.getPort());
            MemorySegment.copy(raw, 0, s, ValueLayout.JAVA_BYTE, SockaddrIn.OFFSET_SIN_ADDR, 4);
            return (int) SockaddrIn.SIZE;
        }
        s.asSlice(0, SockaddrIn6.SIZE).fill((byte) 0);
        SockaddrIn6.sin6Family(s, AF_INET6);
        SockaddrIn6.sin6Port(s, address.getPort());
        MemorySegment.copy(raw, 0, s, ValueLayout.JAVA_BYTE, SockaddrIn6.OFFSET_SIN6_ADDR, 16);
        if (ip instanceof Inet6Address v6) {
            SockaddrIn6.sin6ScopeId(s, v6.getScopeId());
        }
        return (int) SockaddrIn6.SIZE;
    }

    /**
     * Reads an IPv4 or IPv6 {@code sockaddr}; {@code null} for any other family (for example an all-zero
     * address of an unbound {@code rdma_cm_id}, or {@code AF_IB}).
     */
    public static InetSocketAddress read(MemorySegment s) {
        int family = saFamily(s);
        try {
            if (family == AF_INET) {
                byte[] raw = new byte[4];
                MemorySegment.copy(s, ValueLayout.JAVA_BYTE, SockaddrIn.OFFSET_SIN_ADDR, raw, 0, 4);
                return new InetSocketAddress(InetAddress.getByAddress(raw), SockaddrIn.sinPort(s));
            }
            if (family == AF_INET6) {
                byte[] raw = new byte[16];
                MemorySegment.copy(s, ValueLayout.JAVA_BYTE, SockaddrIn6.OFFSET_SIN6_ADDR, raw, 0, 16);
                int scope = SockaddrIn6.sin6ScopeId(s);
                InetAddress ip = scope != 0 ? Inet6Address.getByAddress(null, raw, scope) : InetAddress.getByAddress(raw);
                return new InetSocketAddress(ip, SockaddrIn6.sin6Port(s));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("unreachable: raw address of valid length", e);
        }
        return null;
    }
}
