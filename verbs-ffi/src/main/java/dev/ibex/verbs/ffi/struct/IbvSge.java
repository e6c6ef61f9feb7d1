package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_sge}: one scatter/gather element. Data-path struct: accessors take an element index
 * into an array of SGEs and never allocate.
 */
public final class IbvSge {
    /** {@code struct ibv_sge} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("addr"),
            U32.withName("length"),
            U32.withName("lkey"))
            .withName("ibv_sge");
    /** {@code sizeof(struct ibv_sge)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_sge, addr)}. */
    public static final long OFFSET_ADDR = offset(LAYOUT, "addr");
    /** {@code offsetof(struct ibv_sge, length)}. */
    public static final long OFFSET_LENGTH = offset(LAYOUT, "length");
    /** {@code offsetof(struct ibv_sge, lkey)}. */
    public static final long OFFSET_LKEY = offset(LAYOUT, "lkey");

    private IbvSge() {
    }

    public static long addr(MemorySegment s, long i) {
        return s.get(U64, i * SIZE + OFFSET_ADDR);
    }

    public static void addr(MemorySegment s, long i, long v) {
        s.set(U64, i * SIZE + OFFSET_ADDR, v);
    }

    public static int length(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_LENGTH);
    }

    public static void length(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_LENGTH, v);
    }

    public static int lkey(MemorySegment s, long i) {
        return s.get(U32, i * SIZE + OFFSET_LKEY);
    }

    public static void lkey(MemorySegment s, long i, int v) {
        s.set(U32, i * SIZE + OFFSET_LKEY, v);
    }

    /** The address of element {@code i} (what {@code sg_list} of a work request points to). */
    public static long address(MemorySegment s, long i) {
        return s.address() + i * SIZE;
    }

    /** Fills element {@code i} in one call. */
    public static void set(MemorySegment s, long i, long addr, int length, int lkey) {
        long base = i * SIZE;
        s.set(U64, base + OFFSET_ADDR, addr);
        s.set(U32, base + OFFSET_LENGTH, length);
        s.set(U32, base + OFFSET_LKEY, lkey);
    }
}
