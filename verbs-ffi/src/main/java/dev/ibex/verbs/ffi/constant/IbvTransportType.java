package dev.ibex.verbs.ffi.constant;

/**
 * Device transport types.
 *
 * <p>Values of {@code enum ibv_transport_type}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvTransportType {
    public static final int IBV_TRANSPORT_UNKNOWN = -1;
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;
    public static final int IBV_TRANSPORT_USNIC = 2;
    public static final int IBV_TRANSPORT_USNIC_UDP = 3;
    public static final int IBV_TRANSPORT_UNSPECIFIED = 4;

    private IbvTransportType() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvTransportType.class, value);
    }
}
