package dev.ibex.verbs.ffi.constant;

/**
 * QP states.
 *
 * <p>Values of {@code enum ibv_qp_state}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvQpState {
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_SQD = 4;
    public static final int IBV_QPS_SQE = 5;
    public static final int IBV_QPS_ERR = 6;
    public static final int IBV_QPS_UNKNOWN = 7;

    private IbvQpState() {
    }

    /** The C name of {@code value}, or {@code "UNKNOWN(value)"}. */
    public static String name(int value) {
        return ConstantNames.name(IbvQpState.class, value);
    }
}
