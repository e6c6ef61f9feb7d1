package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;

/**
 * The process-wide default event loops, used by servers and clients that were not told {@code runOn(...)}: opened
 * on first use with the default provider rule ({@code -Dibex.provider}, else rdma-core with a device, else
 * soft-roce), provider settings from system properties and {@link LoopOptions#DEFAULT}. Like reactor-netty's
 * global {@code LoopResources}.
 */
public final class RdmaLoops {
    private static EventLoopGroup global;

    private RdmaLoops() {}

    /** The default group, opened now if needed. */
    public static synchronized EventLoopGroup global() {
        if (global == null || global.isShuttingDown()) {
            global = EventLoopGroup.open(null, ProviderConfig.DEFAULT, LoopOptions.DEFAULT);
        }
        return global;
    }

    /** Closes the default group (every connection on it) if it was opened; the next use opens a new one. */
    public static void disposeGlobal() {
        EventLoopGroup g;
        synchronized (RdmaLoops.class) {
            g = global;
            global = null;
        }
        if (g != null) {
            g.close();
        }
    }
}
