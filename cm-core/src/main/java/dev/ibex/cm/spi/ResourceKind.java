package dev.ibex.cm.spi;

/**
 * The kinds of resource a provider tracks, declared in the order they must be destroyed when a parent is
 * closed: multicast memberships are left before their id goes, QPs go before the CQs and SRQs they use,
 * CQs before their completion channel, memory windows before the regions they are bound to, MRs and AHs before
 * their PD, ids before their event channel.
 */
public enum ResourceKind {
    /** A multicast group membership of a CM id. */
    MULTICAST,
    /** An address handle ({@link AddressHandle}). */
    ADDRESS_HANDLE,
    /** A queue pair ({@link QueuePair}). */
    QUEUE_PAIR,
    /** A shared receive queue ({@link SharedReceiveQueue}). */
    SHARED_RECEIVE_QUEUE,
    /** A completion queue ({@link CompletionQueue}). */
    COMPLETION_QUEUE,
    /** A completion channel ({@link CompletionChannel}). */
    COMPLETION_CHANNEL,
    /** A memory window ({@link MemoryWindow}). */
    MEMORY_WINDOW,
    /** A registered memory region ({@link MemoryRegion}). */
    MEMORY_REGION,
    /** A protection domain ({@link ProtectionDomain}). */
    PROTECTION_DOMAIN,
    /** A CM id ({@link CmId}). */
    CM_ID,
    /** A CM event channel ({@link EventChannel}). */
    EVENT_CHANNEL,
    /** A poller ({@link Poller}). */
    POLLER,
    /** An opened device ({@link DeviceContext}). */
    DEVICE_CONTEXT
}
