package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_device_attr_ex}: output of {@code ibv_query_device_ex}. Only {@code orig_attr} and
 * {@code tm_caps} are named; the members between and after them are padding here.
 */
public final class IbvDeviceAttrEx {
    /** {@code struct ibv_device_attr_ex} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvDeviceAttr.LAYOUT.withName("orig_attr"),
            pad(116),
            IbvTmCaps.LAYOUT.withName("tm_caps"),
            pad(32))
            .withName("ibv_device_attr_ex");
    /** {@code sizeof(struct ibv_device_attr_ex)}: the {@code attr_size} the extended op is called with. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_device_attr_ex, orig_attr)}. */
    public static final long OFFSET_ORIG_ATTR = offset(LAYOUT, "orig_attr");
    /** {@code offsetof(struct ibv_device_attr_ex, tm_caps)}. */
    public static final long OFFSET_TM_CAPS = offset(LAYOUT, "tm_caps");

    private IbvDeviceAttrEx() {
    }

    public static MemorySegment origAttr(MemorySegment s) {
        return s.asSlice(OFFSET_ORIG_ATTR, IbvDeviceAttr.SIZE);
    }

    public static MemorySegment tmCaps(MemorySegment s) {
        return s.asSlice(OFFSET_TM_CAPS, IbvTmCaps.SIZE);
    }
}
