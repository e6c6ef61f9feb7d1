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
        /** Called once per fabric, after its devices are up. */
        CmService create(SoftFabric fabric);
    }

    /** {@code rdma_create_event_channel}. */
    EventChannel createEventChannel();

    /** Closes every channel and id still open; called by {@link SoftFabric#close()}. */
    @Override
    void close();
}
