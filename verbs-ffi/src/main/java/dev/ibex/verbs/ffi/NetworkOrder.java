package dev.ibex.verbs.ffi;

import java.nio.ByteOrder;

/** Converts {@code __be16}/{@code __be64} values returned in registers to host order. */
final class NetworkOrder {
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private NetworkOrder() {
    }

    static int ntohs(short value) {
        return Short.toUnsignedInt(LITTLE ? Short.reverseBytes(value) : value);
    }

    static long ntohll(long value) {
        return LITTLE ? Long.reverseBytes(value) : value;
    }
}
