package dev.ibex.it.conformance;

/**
 * Behaviours a provider may legitimately lack or show differently. A {@link ProviderUnderTest} lists the ones it
 * does not have, each with the reason, and the tests that need one are skipped with that reason in their
 * assumption message — never silently. {@link CapabilityTableTest} makes docs/capabilities.md from them.
 */
public enum Capability {
    /** Automatic path migration: an alternate path is loaded and PATH_MIG/PATH_MIG_ERR are raised. */
    APM("automatic path migration: an alternate path is loaded, PATH_MIG / PATH_MIG_ERR are raised"),
    /** UD multicast groups (join, send to the group, every member receives). */
    MULTICAST("UD multicast groups: join, send to the group, every member receives"),
    /** Send-only full-member joins ({@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}). */
    SEND_ONLY_MULTICAST("send-only full-member joins (RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)"),
    /** IBV_EVENT_QP_LAST_WQE_REACHED when a QP on an SRQ enters the error state. */
    LAST_WQE_REACHED("IBV_EVENT_QP_LAST_WQE_REACHED when a QP on an SRQ enters the error state"),
    /** IBV_EVENT_SRQ_LIMIT_REACHED when an armed SRQ drops below its limit. */
    SRQ_LIMIT_EVENT("IBV_EVENT_SRQ_LIMIT_REACHED when an armed SRQ drops below its limit"),
    /** An on-link address that never answers, so address resolution times out (ADDR_ERROR -ETIMEDOUT). */
    ADDRESS_RESOLUTION_TIMEOUT("address resolution of a silent on-link address times out (ADDR_ERROR, -ETIMEDOUT)"),
    /** RDMA_CM_EVENT_TIMEWAIT_EXIT after a disconnect. */
    TIMEWAIT_EXIT("RDMA_CM_EVENT_TIMEWAIT_EXIT after a disconnect"),
    /** An RC receive buffer too small for the message completes with LOC_LEN_ERR (IBTA), not another error. */
    LOCAL_LENGTH_ERROR("an RC receive too small for the message completes with LOC_LEN_ERR (IBTA)"),
    /** A tag-matching SRQ ({@code IBV_SRQT_TM}, {@code ibv_post_srq_ops}); without it creation is a typed ENOTSUP. */
    TAG_MATCHING("tag-matching SRQs (IBV_SRQT_TM, ibv_post_srq_ops): eager matching, unexpected messages, phase sync");

    private final String description;

    Capability(String description) {
        this.description = description;
    }

    /** One line for the capability table. */
    public String description() {
        return description;
    }
}
