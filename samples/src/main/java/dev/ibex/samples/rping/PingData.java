package dev.ibex.samples.rping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * rping's ping payload: {@code "rdma-ping-<n>: "} followed by a run of ASCII letters 'A'..'z' whose first letter
 * advances by one every ping, and a terminating NUL in the last byte — byte for byte what the C client writes, so
 * either side can print and validate the other's data.
 */
final class PingData {
    static final int FIRST = 65;
    static final int LAST = 122;
    /** {@code sizeof(stringify(INT_MAX)) + sizeof("rdma-ping-%d: ")} as rdma-core 44 computes it. */
    static final int MIN_SIZE = 23;
    /** The largest {@code -S} the C tool accepts. */
    static final int MAX_SIZE = 65535;

    private PingData() {}

    /** Writes ping {@code ping} of {@code size} bytes starting with letter {@code start}. */
    static void fill(MemorySegment buf, int size, int ping, int start) {
        byte[] prefix = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
        int cc = Math.min(prefix.length, size);
        MemorySegment.copy(prefix, 0, buf, ValueLayout.JAVA_BYTE, 0, cc);
        int c = start;
        for (int i = cc; i < size; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) c);
            c = c == LAST ? FIRST : c + 1;
        }
        buf.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
    }

    /** The letter the next ping starts with. */
    static int next(int start) {
        return start == LAST ? FIRST : start + 1;
    }

    /** The length of the NUL-terminated string at the start of {@code buf}, at most {@code max}. */
    static int strlen(MemorySegment buf, int max) {
        for (int i = 0; i < max; i++) {
            if (buf.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return max;
    }

    /** The NUL-terminated string at the start of {@code buf} (at most {@code max} bytes), as {@code printf("%s")}. */
    static String string(MemorySegment buf, int max) {
        byte[] b = buf.asSlice(0, strlen(buf, max)).toArray(ValueLayout.JAVA_BYTE);
        return new String(b, StandardCharsets.US_ASCII);
    }
}
