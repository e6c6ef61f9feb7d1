package dev.ibex.verbs.ffi.constant;

/**
 * Port states.
 *
 * <p>Values of {@code enum ibv_port_state}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvPortState {
    public static final int IBV_PORT_NOP = 0;
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_PORT_ACTIVE_DEFER = 5;

    private IbvPortState() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvPortState.class, value);
    }
}
