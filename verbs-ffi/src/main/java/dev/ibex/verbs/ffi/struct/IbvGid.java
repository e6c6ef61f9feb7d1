package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code union ibv_gid}: a 128-bit GID ({@code raw[16]} or subnet prefix + interface id). For RoCE a GID
 * is the IPv6 (or IPv4-mapped) address of the port.
 */
public final class IbvGid {
    /** {@code union ibv_gid} with explicit padding. */
    public static final UnionLayout LAYOUT = MemoryLayout.unionLayout(
            chars("raw", 16),
            MemoryLayout.structLayout(
                    BE64.withName("subnet_prefix"),
                    BE64.withName("interface_id")).withName("global"))
            .withName("ibv_gid");
    /** {@code sizeof(union ibv_gid)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(union ibv_gid, raw)}. */
    public static final long OFFSET_RAW = offset(LAYOUT, "raw");
    /** {@code offsetof(union ibv_gid, global.subnet_prefix)}. */
    public static final long OFFSET_GLOBAL_SUBNET_PREFIX = offset(LAYOUT, "global.subnet_prefix");
    /** {@code offsetof(union ibv_gid, global.interface_id)}. */
    public static final long OFFSET_GLOBAL_INTERFACE_ID = offset(LAYOUT, "global.interface_id");

    private IbvGid() {
    }

    public static long subnetPrefix(MemorySegment s) {
        return s.get(BE64, OFFSET_GLOBAL_SUBNET_PREFIX);
    }

    public static void subnetPrefix(MemorySegment s, long v) {
        s.set(BE64, OFFSET_GLOBAL_SUBNET_PREFIX, v);
    }

    public static long interfaceId(MemorySegment s) {
        return s.get(BE64, OFFSET_GLOBAL_INTERFACE_ID);
    }

    public static void interfaceId(MemorySegment s, long v) {
        s.set(BE64, OFFSET_GLOBAL_INTERFACE_ID, v);
    }

    /** The 16 GID bytes in wire order. */
    public static byte[] raw(MemorySegment s) {
        return s.asSlice(OFFSET_RAW, 16).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Sets the 16 GID bytes (wire order). */
    public static void raw(MemorySegment s, byte[] gid) {
        if (gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + gid.length);
        }
        MemorySegment.copy(gid, 0, s, ValueLayout.JAVA_BYTE, OFFSET_RAW, 16);
    }
}
