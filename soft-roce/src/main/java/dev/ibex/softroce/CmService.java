package dev.ibex.softroce;

import dev.ibex.cm.spi.EventChannel;

/**
 * The connection manager a {@link SoftFabric} delegates to — the seam between the verbs provider
 * ({@code dev.ibex.softroce}, {@code .verbs}, {@code .transport}) and the IB CM / RDMA CM
 * ({@code dev.ibex.softroce.cm}). See {@code soft-roce/CONTRACT.md}.
 *
 * <p>The CM package registers a {@link Factory} in {@code META-INF/services/dev.ibex.softroce.CmService$Factory};
 * each fabric creates one service when it opens and closes it when it closes (after every event channel).
 */
public interface CmService extends AutoCloseable {

    /** Creates the CM service of a fabric. */
    interface Factory {
        /**
         * Called once per fabric, after its devices are up.
         *
         * @param fabric the fabric the service serves (its devices are open)
         * @return the fabric's CM service
         */
        CmService create(SoftFabric fabric);
    }

    /**
     * {@code rdma_create_event_channel}.
     *
     * @return a new event channel of this fabric's CM
     */
    EventChannel createEventChannel();

    /**
     * The network device under {@code address} failed over to another slave of its bond, so the address now has
     * another hardware address: ids bound to it get {@code ADDR_CHANGE}, as the kernel's CM reports
     * {@code NETDEV_BONDING_FAILOVER}. Returns how many ids were told.
     *
     * @param address the address whose network device failed over
     * @return the number of ids told (0 by default: a CM without bonding support)
     */
    default int bondingFailover(java.net.InetAddress address) {
        return 0;
    }

    /** Closes every channel and id still open; called by {@link SoftFabric#close()}. */
    @Override
    void close();
}
