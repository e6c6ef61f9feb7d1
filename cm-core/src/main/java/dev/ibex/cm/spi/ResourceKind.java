package dev.ibex.cm.spi;

/**
 * The kinds of resource a provider tracks, declared in the order they must be destroyed when a parent is
 * closed: multicast memberships are left before their id goes, QPs go before the CQs and SRQs they use,
 * CQs before their completion channel, memory windows before the regions they are bound to, MRs and AHs before
 * their PD, ids before their event channel.
 */
public enum ResourceKind {
    MULTICAST,
    ADDRESS_HANDLE,
    QUEUE_PAIR,
    SHARED_RECEIVE_QUEUE,
    COMPLETION_QUEUE,
    COMPLETION_CHANNEL,
    MEMORY_WINDOW,
    MEMORY_REGION,
    PROTECTION_DOMAIN,
    CM_ID,
    EVENT_CHANNEL,
    POLLER,
    DEVICE_CONTEXT
}
