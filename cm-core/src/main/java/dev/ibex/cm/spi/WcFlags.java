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
    /**
     * {@code IBV_WC_TM_SYNC_REQ}: the tag-matching SRQ counted unexpected messages that software has not yet reported:
     * tags added from now on stay unmatched until a list operation carries {@link SrqOpsBatch#TM_SYNC} with the count.
     */
    public static final int TM_SYNC_REQ = 1 << 4;
    /** {@code IBV_WC_TM_MATCH}: a tagged message matched the posted tag this completion names. */
    public static final int TM_MATCH = 1 << 5;
    /** {@code IBV_WC_TM_DATA_VALID}: all data of the matched message is in the tagged buffer. */
    public static final int TM_DATA_VALID = 1 << 6;

    private WcFlags() {}
}
