package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_port_attr.link_layer} values (RoCE ports report Ethernet).
 *
 * <p>Values of {@code IBV_LINK_LAYER_*}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvLinkLayer {
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    private IbvLinkLayer() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvLinkLayer.class, value);
    }
}
