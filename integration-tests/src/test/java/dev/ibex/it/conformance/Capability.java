package dev.ibex.it.conformance;

/**
 * Behaviours a provider may legitimately lack or show differently. A {@link ProviderUnderTest} lists the ones it
 * does not have, each with the reason, and the tests that need one are skipped with that reason in their
 * assumption message — never silently.
 */
public enum Capability {
    /** Automatic path migration: an alternate path is loaded and PATH_MIG/PATH_MIG_ERR are raised. */
    APM,
    /** UD multicast groups (join, send to the group, every member receives). */
    MULTICAST,
    /** Send-only full-member joins ({@code RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER}). */
    SEND_ONLY_MULTICAST,
    /** IBV_EVENT_QP_LAST_WQE_REACHED when a QP on an SRQ enters the error state. */
    LAST_WQE_REACHED,
    /** IBV_EVENT_SRQ_LIMIT_REACHED when an armed SRQ drops below its limit. */
    SRQ_LIMIT_EVENT,
    /** An on-link address that never answers, so address resolution times out (ADDR_ERROR -ETIMEDOUT). */
    ADDRESS_RESOLUTION_TIMEOUT,
    /** RDMA_CM_EVENT_TIMEWAIT_EXIT after a disconnect. */
    TIMEWAIT_EXIT,
    /** An RC receive buffer too small for the message completes with LOC_LEN_ERR (IBTA), not another error. */
    LOCAL_LENGTH_ERROR
}
