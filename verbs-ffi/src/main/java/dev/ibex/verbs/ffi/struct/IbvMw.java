package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_mw}: a memory window ({@code ibv_alloc_mw}); {@code rkey} is its key as the provider last set it
 * (a type 1 bind updates it; a type 2 window's new key is the one its BIND_MW work request named).
 */
public final class IbvMw {
    /** {@code struct ibv_mw} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            PTR.withName("context"),
            PTR.withName("pd"),
            U32.withName("rkey"),
            U32.withName("handle"),
            U32.withName("type"),
            pad(4))
            .withName("ibv_mw");
    /** {@code sizeof(struct ibv_mw)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_mw, context)}. */
    public static final long OFFSET_CONTEXT = offset(LAYOUT, "context");
    /** {@code offsetof(struct ibv_mw, pd)}. */
    public static final long OFFSET_PD = offset(LAYOUT, "pd");
    /** {@code offsetof(struct ibv_mw, rkey)}. */
    public static final long OFFSET_RKEY = offset(LAYOUT, "rkey");
    /** {@code offsetof(struct ibv_mw, handle)}. */
    public static final long OFFSET_HANDLE = offset(LAYOUT, "handle");
    /** {@code offsetof(struct ibv_mw, type)}. */
    public static final long OFFSET_TYPE = offset(LAYOUT, "type");

    private IbvMw() {
    }

    public static MemorySegment context(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_CONTEXT, IbvContext.SIZE);
    }

    public static MemorySegment pd(MemorySegment s) {
        return Layouts.pointer(s, OFFSET_PD, IbvPd.SIZE);
    }

    public static int rkey(MemorySegment s) {
        return s.get(U32, OFFSET_RKEY);
    }

    public static int handle(MemorySegment s) {
        return s.get(U32, OFFSET_HANDLE);
    }

    /** {@code enum ibv_mw_type}: 1 or 2. */
    public static int type(MemorySegment s) {
        return s.get(U32, OFFSET_TYPE);
    }
}
