package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct sockaddr_storage}: room for any socket address (128 bytes); allocate one of these for
 * address arguments and write it with {@link Sockaddr#write}.
 */
public final class SockaddrStorage {
    /** {@code struct sockaddr_storage} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(U16.withName("ss_family"), pad(126)).withByteAlignment(8).withName("sockaddr_storage");
    /** {@code sizeof(struct sockaddr_storage)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct sockaddr_storage, ss_family)}. */
    public static final long OFFSET_SS_FAMILY = offset(LAYOUT, "ss_family");

    private SockaddrStorage() {
    }

    public static int ssFamily(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_SS_FAMILY));
    }

    public static void ssFamily(MemorySegment s, int v) {
        s.set(U16, OFFSET_SS_FAMILY, (short) v);
    }
}
