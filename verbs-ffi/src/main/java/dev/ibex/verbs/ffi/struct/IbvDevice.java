package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_device}: an entry of {@code ibv_get_device_list}.
 */
public final class IbvDevice {
    /** {@code struct ibv_device} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.structLayout(
                    PTR.withName("_dummy1"),
                    PTR.withName("_dummy2")).withName("_ops"),
            U32.withName("node_type"),
            U32.withName("transport_type"),
            chars("name", 64),
            chars("dev_name", 64),
            chars("dev_path", 256),
            chars("ibdev_path", 256))
            .withName("ibv_device");
    /** {@code sizeof(struct ibv_device)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_device, node_type)}. */
    public static final long OFFSET_NODE_TYPE = offset(LAYOUT, "node_type");
    /** {@code offsetof(struct ibv_device, transport_type)}. */
    public static final long OFFSET_TRANSPORT_TYPE = offset(LAYOUT, "transport_type");
    /** {@code offsetof(struct ibv_device, name)}. */
    public static final long OFFSET_NAME = offset(LAYOUT, "name");
    /** {@code offsetof(struct ibv_device, dev_name)}. */
    public static final long OFFSET_DEV_NAME = offset(LAYOUT, "dev_name");
    /** {@code offsetof(struct ibv_device, dev_path)}. */
    public static final long OFFSET_DEV_PATH = offset(LAYOUT, "dev_path");
    /** {@code offsetof(struct ibv_device, ibdev_path)}. */
    public static final long OFFSET_IBDEV_PATH = offset(LAYOUT, "ibdev_path");

    private IbvDevice() {
    }

    public static int nodeType(MemorySegment s) {
        return s.get(U32, OFFSET_NODE_TYPE);
    }

    public static int transportType(MemorySegment s) {
        return s.get(U32, OFFSET_TRANSPORT_TYPE);
    }

    /** Kernel device name, e.g. {@code rxe0} or {@code mlx5_0}. */
    public static String name(MemorySegment s) {
        return Layouts.cString(s, OFFSET_NAME, 64);
    }

    /** uverbs device name, e.g. {@code uverbs0}. */
    public static String devName(MemorySegment s) {
        return Layouts.cString(s, OFFSET_DEV_NAME, 64);
    }

    public static String devPath(MemorySegment s) {
        return Layouts.cString(s, OFFSET_DEV_PATH, 256);
    }

    public static String ibdevPath(MemorySegment s) {
        return Layouts.cString(s, OFFSET_IBDEV_PATH, 256);
    }
}
