package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_ah}: an address handle (UD destination).
 */
public final class IbvAh {
    /** {@code struct ibv_ah} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("pd"),
            U32.withName("handle"),
            pad(4))
            .withName("ibv_ah");
    /** {@code sizeof(struct ibv_ah)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_ah, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_ah, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_ah, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");

    private IbvAh() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }
}
