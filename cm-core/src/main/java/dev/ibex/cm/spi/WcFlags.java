package dev.ibex.cm.spi;

/** {@code enum ibv_wc_flags}. */
public final class WcFlags {
    /** {@code IBV_WC_GRH}: the receive buffer starts with a valid 40-byte GRH (UD). */
    public static final int GRH = 1;
    /** {@code IBV_WC_WITH_IMM}: the completion carries immediate data. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code IBV_WC_IP_CSUM_OK}: the device verified the packet's IP checksum. */
    public static final int IP_CSUM_OK = 1 << 2;
    /** {@code IBV_WC_WITH_INV}: the sender's SEND_WITH_INV invalidated a local rkey. */
    public static final int WITH_INV = 1 << 3;

    private WcFlags() {}
}
