package dev.ibex.cm.spi;

/** Options settable with {@code rdma_set_option} ({@code RDMA_OPTION_ID_*}). */
public enum CmOption {
    /** IP type of service (u8), before resolving the route. */
    TOS,
    /** Allow address reuse (int, 0/1), before binding. */
    REUSEADDR,
    /** Bind IPv6 only, not IPv4-mapped (int, 0/1), before binding. */
    AFONLY,
    /** QP ACK timeout (u8, IB time code), before connecting. */
    ACK_TIMEOUT
}
