package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_device_attr.device_cap_flags} bits ({@code IBV_DEVICE_AUTO_PATH_MIG} tells whether APM is supported).
 *
 * <p>Values of {@code enum ibv_device_cap_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvDeviceCapFlags {
    public static final int IBV_DEVICE_RESIZE_MAX_WR = 1 << 0;
    public static final int IBV_DEVICE_BAD_PKEY_CNTR = 1 << 1;
    public static final int IBV_DEVICE_BAD_QKEY_CNTR = 1 << 2;
    public static final int IBV_DEVICE_RAW_MULTI = 1 << 3;
    public static final int IBV_DEVICE_AUTO_PATH_MIG = 1 << 4;
    public static final int IBV_DEVICE_CHANGE_PHY_PORT = 1 << 5;
    public static final int IBV_DEVICE_UD_AV_PORT_ENFORCE = 1 << 6;
    public static final int IBV_DEVICE_CURR_QP_STATE_MOD = 1 << 7;
    public static final int IBV_DEVICE_SHUTDOWN_PORT = 1 << 8;
    public static final int IBV_DEVICE_INIT_TYPE = 1 << 9;
    public static final int IBV_DEVICE_PORT_ACTIVE_EVENT = 1 << 10;
    public static final int IBV_DEVICE_SYS_IMAGE_GUID = 1 << 11;
    public static final int IBV_DEVICE_RC_RNR_NAK_GEN = 1 << 12;
    public static final int IBV_DEVICE_SRQ_RESIZE = 1 << 13;
    public static final int IBV_DEVICE_N_NOTIFY_CQ = 1 << 14;
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    public static final int IBV_DEVICE_UD_IP_CSUM = 1 << 18;
    public static final int IBV_DEVICE_XRC = 1 << 20;
    public static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;
    public static final int IBV_DEVICE_RC_IP_CSUM = 1 << 25;
    public static final int IBV_DEVICE_RAW_IP_CSUM = 1 << 26;
    public static final int IBV_DEVICE_MANAGED_FLOW_STEERING = 1 << 29;

    private IbvDeviceCapFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvDeviceCapFlags.class, mask);
    }
}
