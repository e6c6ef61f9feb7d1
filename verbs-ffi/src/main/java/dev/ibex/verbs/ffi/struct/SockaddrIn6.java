package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct sockaddr_in6}: an IPv6 socket address.
 */
public final class SockaddrIn6 {
    /** {@code struct sockaddr_in6} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U16.withName("sin6_family"),
            BE16.withName("sin6_port"),
            BE32.withName("sin6_flowinfo"),
            opaque("sin6_addr", 16, 4),
            U32.withName("sin6_scope_id"))
            .withName("sockaddr_in6");
    /** {@code sizeof(struct sockaddr_in6)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct sockaddr_in6, sin6_family)}. */
    public static final long OFFSET_SIN6_FAMILY = offset(LAYOUT, "sin6_family");
    /** {@code offsetof(struct sockaddr_in6, sin6_port)}. */
    public static final long OFFSET_SIN6_PORT = offset(LAYOUT, "sin6_port");
    /** {@code offsetof(struct sockaddr_in6, sin6_flowinfo)}. */
    public static final long OFFSET_SIN6_FLOWINFO = offset(LAYOUT, "sin6_flowinfo");
    /** {@code offsetof(struct sockaddr_in6, sin6_addr)}. */
    public static final long OFFSET_SIN6_ADDR = offset(LAYOUT, "sin6_addr");
    /** {@code offsetof(struct sockaddr_in6, sin6_scope_id)}. */
    public static final long OFFSET_SIN6_SCOPE_ID = offset(LAYOUT, "sin6_scope_id");

    private SockaddrIn6() {
    }

    public static int sin6Family(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_SIN6_FAMILY));
    }

    public static void sin6Family(MemorySegment s, int v) {
        s.set(U16, OFFSET_SIN6_FAMILY, (short) v);
    }

    public static int sin6Port(MemorySegment s) {
        return Short.toUnsignedInt(s.get(BE16, OFFSET_SIN6_PORT));
    }

    public static void sin6Port(MemorySegment s, int v) {
        s.set(BE16, OFFSET_SIN6_PORT, (short) v);
    }

    public static int sin6Flowinfo(MemorySegment s) {
        return s.get(BE32, OFFSET_SIN6_FLOWINFO);
    }

    public static void sin6Flowinfo(MemorySegment s, int v) {
        s.set(BE32, OFFSET_SIN6_FLOWINFO, v);
    }

    public static MemorySegment sin6Addr(MemorySegment s) {
        return s.asSlice(OFFSET_SIN6_ADDR, 16);
    }

    public static int sin6ScopeId(MemorySegment s) {
        return s.get(U32, OFFSET_SIN6_SCOPE_ID);
    }

    public static void sin6ScopeId(MemorySegment s, int v) {
        s.set(U32, OFFSET_SIN6_SCOPE_ID, v);
    }
}
