package dev.ibex.verbs.ffi.constant;

/**
 * Device node types.
 *
 * <p>Values of {@code enum ibv_node_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvNodeType {
    public static final int IBV_NODE_UNKNOWN = -1;
    public static final int IBV_NODE_CA = 1;
    public static final int IBV_NODE_SWITCH = 2;
    public static final int IBV_NODE_ROUTER = 3;
    public static final int IBV_NODE_RNIC = 4;
    public static final int IBV_NODE_USNIC = 5;
    public static final int IBV_NODE_USNIC_UDP = 6;
    public static final int IBV_NODE_UNSPECIFIED = 7;

    private IbvNodeType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvNodeType.class, value);
    }
}
