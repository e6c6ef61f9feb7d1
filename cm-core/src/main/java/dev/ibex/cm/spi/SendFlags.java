package dev.ibex.cm.spi;

/** {@code enum ibv_send_flags}. */
public final class SendFlags {
    /** Wait for earlier RDMA READ and atomic WRs to complete (RC only). */
    public static final int FENCE = 1;
    /** Generate a completion even when the QP was created with {@code sqSigAll = false}. */
    public static final int SIGNALED = 1 << 1;
    /** Raise a solicited event at the receiver (SEND and WRITE_WITH_IMM). */
    public static final int SOLICITED = 1 << 2;
    /** Copy the data into the WR at post time: no lkey needed, buffer reusable at once (SEND and WRITE). */
    public static final int INLINE = 1 << 3;
    /** Let the device compute the IP checksum (raw packet and UD QPs that support it). */
    public static final int IP_CSUM = 1 << 4;

    private SendFlags() {}
}
