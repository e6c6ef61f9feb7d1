package dev.ibex.it.conformance;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;

/** A buffer registered with every access right, for both sides of a data test. */
public record Registered(MemorySegment segment, MemoryRegion mr) {
    static final EnumSet<Access> ALL = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
            Access.REMOTE_ATOMIC);

    static Registered of(Scope scope, ProtectionDomain pd, int size) {
        MemorySegment s = scope.arena().allocate(size, 4096);
        return new Registered(s, scope.add(pd.registerMemory(s, ALL)));
    }

    long address(long offset) {
        return segment.address() + offset;
    }

    int lkey() {
        return mr.lkey();
    }

    int rkey() {
        return mr.rkey();
    }

    void put(long offset, String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(b, 0, segment, ValueLayout.JAVA_BYTE, offset, b.length);
    }

    String get(long offset, int length) {
        byte[] b = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, b, 0, length);
        return new String(b, StandardCharsets.US_ASCII);
    }
}
