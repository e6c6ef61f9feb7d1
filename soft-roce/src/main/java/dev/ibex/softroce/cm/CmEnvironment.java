package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.ResourceTracker;
import java.net.InetAddress;
import java.util.List;

/** What the soft fabric provides to its connection manager. */
public interface CmEnvironment {

    /** The fabric's devices now (one per local IP address). */
    List<? extends CmDevice> devices();

    /** The device owning {@code address}, or {@code null}. */
    default CmDevice device(InetAddress address) {
        for (CmDevice d : devices()) {
            if (d.address().equals(address)) {
                return d;
            }
        }
        return null;
    }

    /** Where CM ids, event channels and multicast memberships are counted. */
    ResourceTracker tracker();

    /** The fabric's timers (CM retries, timewait, asynchronous events). */
    CmTimer timer();

    /**
     * Arranges for {@code onCommEst} to run (on any thread, at most once) when {@code qp} receives its first packet
     * in RTR ({@code IBV_EVENT_COMM_EST}). The default does nothing: RTU alone establishes the connection.
     */
    default void onCommEst(QueuePair qp, Runnable onCommEst) {
    }

    /** Drops what {@link #onCommEst} registered for {@code qp} (the QP is being destroyed). */
    default void forgetCommEst(QueuePair qp) {
    }

    /**
     * Arranges for {@code onPathMigrated} to run (on any thread) each time {@code qp} migrates to its alternate path
     * ({@code IBV_EVENT_PATH_MIG}), until {@link #forgetCommEst} drops it. The default does nothing.
     */
    default void onPathMigrated(QueuePair qp, Runnable onPathMigrated) {
    }
}
