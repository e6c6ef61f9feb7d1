package dev.ibex.cm.spi;

import java.util.List;

/**
 * An opened provider (librdmacm/libibverbs opened, or the soft fabric started): the root of every resource it
 * creates. Closing it closes everything still open, children before parents in the order the verbs require
 * (see {@link ResourceKind}), and is idempotent.
 *
 * <p>Thread-safety: creating and closing resources is thread-safe; each resource's own operations follow
 * the rules documented on it (the framework confines each to one event loop).
 */
public interface Fabric extends AutoCloseable {
    /** {@return the provider's name ({@link RdmaProvider#name()})} */
    String providerName();

    /** {@return the devices this fabric sees, opened (like {@code rdma_get_devices})} */
    List<DeviceContext> devices();

    /** {@return a new CM event channel ({@code rdma_create_event_channel})} */
    EventChannel createEventChannel();

    /** {@return a new poller that waits on this fabric's event sources (one per event loop)} */
    Poller createPoller();

    /**
     * A poller for a thread that does nothing but poll it — an event loop. The provider may run the device's work
     * inline on that thread (soft-roce reads its packets there: run to completion), so while it exists the device may
     * progress only as often as it is polled: never hand it to code that polls now and then. The default is
     * {@link #createPoller()}.
     *
     * @return a new poller, otherwise as {@link #createPoller()}
     */
    default Poller createLoopPoller() {
        return createPoller();
    }

    /** {@return counts of every live resource, for leak checks and debugging} */
    ResourceCounts resources();

    /**
     * The provider's own counters (retransmissions, RNR NAKs, drops …; see {@link RdmaCounter}), tagged by device or
     * port, read lazily. Called when a metrics system registers them, not per read; the suppliers stay valid (and
     * stop growing) after the fabric closes. None by default.
     *
     * @return the counters
     */
    default java.util.List<RdmaCounter> counters() {
        return List.of();
    }

    @Override
    void close();
}
