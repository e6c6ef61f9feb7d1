package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct epoll_event}. On x86_64 glibc declares it packed (12 bytes, {@code data} at offset 4,
 * unaligned); on other architectures it is naturally aligned (16 bytes). Accessors take an array index
 * because {@code epoll_wait} fills an array.
 */
public final class EpollEvent {
    /** Whether this architecture's glibc declares {@code struct epoll_event} packed. */
    public static final boolean PACKED = "amd64".equals(System.getProperty("os.arch"))
            || "x86_64".equals(System.getProperty("os.arch"));
    /** {@code struct epoll_event} with explicit padding. */
    public static final StructLayout LAYOUT = PACKED
            ? MemoryLayout.structLayout(
                    ValueLayout.JAVA_INT_UNALIGNED.withName("events"),
                    ValueLayout.JAVA_LONG_UNALIGNED.withName("data")).withName("epoll_event")
            : MemoryLayout.structLayout(
                    U32.withName("events"),
                    pad(4),
                    U64.withName("data")).withName("epoll_event");
    /** {@code sizeof(struct epoll_event)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct epoll_event, events)}. */
    public static final long OFFSET_EVENTS = offset(LAYOUT, "events");
    /** {@code offsetof(struct epoll_event, data)}. */
    public static final long OFFSET_DATA = offset(LAYOUT, "data");

    private EpollEvent() {
    }

    public static int events(MemorySegment s, long i) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, i * SIZE + OFFSET_EVENTS);
    }

    public static void events(MemorySegment s, long i, int v) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, i * SIZE + OFFSET_EVENTS, v);
    }

    /** The 64-bit {@code epoll_data} (the bindings use the {@code u64} member). */
    public static long data(MemorySegment s, long i) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, i * SIZE + OFFSET_DATA);
    }

    public static void data(MemorySegment s, long i, long v) {
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, i * SIZE + OFFSET_DATA, v);
    }
}
