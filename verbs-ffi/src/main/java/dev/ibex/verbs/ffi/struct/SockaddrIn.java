package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct sockaddr_in}: an IPv4 socket address.
 */
public final class SockaddrIn {
    /** {@code struct sockaddr_in} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("sin_family"),
            BE16.withName("sin_port"),
            BE32.withName("sin_addr"),
            chars("sin_zero", 8))
            .withName("sockaddr_in");
    /** {@code sizeof(struct sockaddr_in)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct sockaddr_in, sin_family)}. */
    public static final long OFFSET_SIN_FAMILY = offset(LAYOUT, "sin_family");
    /** {@code offsetof(struct sockaddr_in, sin_port)}. */
    public static final long OFFSET_SIN_PORT = offset(LAYOUT, "sin_port");
    /** {@code offsetof(struct sockaddr_in, sin_addr)}. */
    public static final long OFFSET_SIN_ADDR = offset(LAYOUT, "sin_addr");

    private SockaddrIn() {
    }

    public static int sinFamily(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_SIN_FAMILY));
    }

    public static void sinFamily(MemorySegment s, int v) {
        s.set(U16, OFFSET_SIN_FAMILY, (short) v);
    }

    /** The port as a host value (stored in network byte order). */
    public static int sinPort(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_SIN_PORT));
    }

    public static void sinPort(MemorySegment s, int v) {
        s.set(BE16, OFFSET_SIN_PORT, (short) v);
    }

    /** The IPv4 address as a host-order int ({@code 0x7f000001} for 127.0.0.1). */
    public static int sinAddr(MemorySegment s) {
        return s.get(BE32, OFFSET_SIN_ADDR);
    }

    public static void sinAddr(MemorySegment s, int v) {
        s.set(BE32, OFFSET_SIN_ADDR, v);
    }
}
