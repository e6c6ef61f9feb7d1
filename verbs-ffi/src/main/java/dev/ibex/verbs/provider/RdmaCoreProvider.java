package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ProviderStatus;
import dev.ibex.cm.spi.RdmaProvider;
import dev.ibex.verbs.ffi.RdmaAvailability;

/**
 * The rdma-core provider: the Ibex SPI over librdmacm and libibverbs (any RDMA device the kernel has —
 * InfiniBand, RoCE, iWARP, Soft-RoCE). Preferred whenever {@link #probe()} finds a device.
 *
 * <p>Configuration keys ({@link ProviderConfig}, also as system properties):
 * <ul>
 *   <li>{@value #FORK_INIT} ({@code false}): call {@code ibv_fork_init} when the fabric opens, before any
 *       memory is registered. Needed only when native code in the process calls {@code fork()};
 *       {@code ProcessBuilder} spawns with {@code posix_spawn} (vfork semantics) and is safe. See the
 *       verbs-ffi README, "fork() and ibv_fork_init".</li>
 *   <li>{@value #POLLER_SPIN_NANOS} ({@code 0}): before an event loop's poller blocks in {@code epoll_wait},
 *       it re-polls its fds without blocking for up to this many nanoseconds and returns as soon as a CQ
 *       event, CM event or wake-up is ready. Trades up to that much busy CPU per idle poll for the thread
 *       wake-up a message otherwise costs (what {@code ib_send_lat} does, and {@code ib_send_lat -e} does
 *       not); pays off only with a core to spare per loop. 0 blocks at once.</li>
 *   <li>{@value #POLLER_ADAPTIVE_SPIN_NANOS} ({@code 0}): without a fixed spin, the poller spins for a window that
 *       adapts to its waits up to this many nanoseconds ({@link dev.ibex.cm.spi.IdleSpin#adaptive}, soft-roce's
 *       default idle policy); off by default here, where no figure of the VM's guest backs it yet.</li>
 * </ul>
 */
public final class RdmaCoreProvider implements RdmaProvider {
    /** The provider's name. */
    public static final String NAME = "rdma-core";
    /** Config key: call {@code ibv_fork_init} at open. */
    public static final String FORK_INIT = "ibex.rdma.forkInit";
    /** Config key: nanoseconds a poller spins (non-blocking {@code epoll_wait}) before blocking; 0 = never. */
    public static final String POLLER_SPIN_NANOS = "ibex.rdma.poller.spinNanos";
    /** Config key: the longest window of a poller's adaptive spin, when no fixed spin is set; 0 = none. */
    public static final String POLLER_ADAPTIVE_SPIN_NANOS = "ibex.rdma.poller.adaptiveSpinNanos";

    /** The provider; {@link java.util.ServiceLoader} creates it, applications choose it by {@link #NAME}. */
    public RdmaCoreProvider() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Never throws: libraries missing, no kernel support or no device all come back as an unavailable status. */
    @Override
    public ProviderStatus probe() {
        try {
            RdmaAvailability a = RdmaAvailability.probe();
            return a.usable()
                    ? ProviderStatus.available(NAME, a.devices(), a.reason())
                    : ProviderStatus.unavailable(NAME, a.reason());
        } catch (RuntimeException | LinkageError e) {
            return ProviderStatus.unavailable(NAME, "probing rdma-core failed: " + e);
        }
    }

    @Override
    public boolean preferWhenAvailable() {
        return true;
    }

    /**
     * @throws dev.ibex.cm.RdmaException ENOSYS (no kernel RDMA support), ENODEV (no device, no RDMA CM) or
     *     ELIBACC (libraries missing), with what to do about it
     */
    @Override
    public Fabric open(ProviderConfig config) {
        return NativeFabric.open(config == null ? ProviderConfig.DEFAULT : config);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
