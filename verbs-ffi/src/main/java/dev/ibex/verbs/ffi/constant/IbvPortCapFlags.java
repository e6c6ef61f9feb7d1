package dev.ibex.verbs.ffi.constant;

/**
 * {@code ibv_port_attr.port_cap_flags} bits.
 *
 * <p>Values of {@code enum ibv_port_cap_flags}, with the C names; the layout test checks every value against the
 * installed headers.
 */
public final class IbvPortCapFlags {
    public static final int IBV_PORT_SM = 1 << 1;
    public static final int IBV_PORT_NOTICE_SUP = 1 << 2;
    public static final int IBV_PORT_TRAP_SUP = 1 << 3;
    public static final int IBV_PORT_OPT_IPD_SUP = 1 << 4;
    public static final int IBV_PORT_AUTO_MIGR_SUP = 1 << 5;
    public static final int IBV_PORT_SL_MAP_SUP = 1 << 6;
    public static final int IBV_PORT_MKEY_NVRAM = 1 << 7;
    public static final int IBV_PORT_PKEY_NVRAM = 1 << 8;
    public static final int IBV_PORT_LED_INFO_SUP = 1 << 9;
    public static final int IBV_PORT_SYS_IMAGE_GUID_SUP = 1 << 11;
    public static final int IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12;
    public static final int IBV_PORT_EXTENDED_SPEEDS_SUP = 1 << 14;
    public static final int IBV_PORT_CAP_MASK2_SUP = 1 << 15;
    public static final int IBV_PORT_CM_SUP = 1 << 16;
    public static final int IBV_PORT_SNMP_TUNNEL_SUP = 1 << 17;
    public static final int IBV_PORT_REINIT_SUP = 1 << 18;
    public static final int IBV_PORT_DEVICE_MGMT_SUP = 1 << 19;
    public static final int IBV_PORT_VENDOR_CLASS_SUP = 1 << 20;
    public static final int IBV_PORT_DR_NOTICE_SUP = 1 << 21;
    public static final int IBV_PORT_CAP_MASK_NOTICE_SUP = 1 << 22;
    public static final int IBV_PORT_BOOT_MGMT_SUP = 1 << 23;
    public static final int IBV_PORT_LINK_LATENCY_SUP = 1 << 24;
    public static final int IBV_PORT_CLIENT_REG_SUP = 1 << 25;
    public static final int IBV_PORT_IP_BASED_GIDS = 1 << 26;

    private IbvPortCapFlags() {
    }

    /** The set bits of {@code mask} as C names joined by {@code |} (unknown bits in hex). */
    public static String describe(int mask) {
        return ConstantNames.flags(IbvPortCapFlags.class, mask);
    }
}
