package dev.ibex.cm.spi;

/**
 * A CM event channel ({@code struct rdma_event_channel}). Events of every {@link CmId} created on it (or
 * migrated to it) arrive here. Confined to one thread (its event loop) except {@link #close()}.
 */
public interface EventChannel extends EventSource, AutoCloseable {

    /**
     * {@code rdma_create_id}.
     *
     * @param portSpace TCP for connected (RC) ids, UDP for datagram (UD) ids
     * @param context the id's user context (the framework's endpoint), retrievable with {@link CmId#context()}
     * @return the new id, whose events arrive on this channel
     */
    CmId createId(PortSpace portSpace, Object context);

    /**
     * The next event, or {@code null} when none is pending (never blocks). Everything the event carries has been
     * copied into the returned record and the native event has already been acknowledged, so destroying or
     * migrating ids never waits on this channel.
     *
     * @return the event, or {@code null}
     */
    CmEvent poll();

    /**
     * Destroys the channel. Ids still on it are destroyed first (their QPs and memberships with them).
     */
    @Override
    void close();
}
