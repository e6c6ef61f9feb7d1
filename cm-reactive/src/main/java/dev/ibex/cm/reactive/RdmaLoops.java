package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;

/**
 * The process-wide default event loops, used by servers and clients that were not told {@code runOn(...)}: opened
 * on first use with the default provider rule ({@code -Dibex.provider}, else rdma-core with a device, else
 * soft-roce), provider settings from system properties and {@link LoopOptions#DEFAULT}, its number of loops taken
 * from {@value #LOOPS_PROPERTY} when set. Like reactor-netty's global {@code LoopResources} and its
 * {@code reactor.netty.ioWorkerCount}. Thread-safe.
 */
public final class RdmaLoops {
    /**
     * System property: the number of loops (threads) of the default group, a positive integer; read when the group
     * is opened. Unset: one loop per available processor ({@link LoopOptions#loops()}).
     */
    public static final String LOOPS_PROPERTY = "ibex.reactive.loops";

    private static EventLoopGroup global;

    private RdmaLoops() {}

    /**
     * The default group, opened now if needed.
     *
     * @return the group
     * @throws IllegalArgumentException if {@value #LOOPS_PROPERTY} is set but not a positive integer
     */
    public static synchronized EventLoopGroup global() {
        if (global == null || global.isShuttingDown()) {
            global = EventLoopGroup.open(null, ProviderConfig.DEFAULT,
                    options(System.getProperty(LOOPS_PROPERTY)));
        }
        return global;
    }

    /** The default group's options for a value of {@value #LOOPS_PROPERTY} ({@code null}: unset). */
    static LoopOptions options(String loops) {
        if (loops == null || loops.isBlank()) {
            return LoopOptions.DEFAULT;
        }
        int n;
        try {
            n = Integer.parseInt(loops.trim());
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n <= 0) {
            // checked before any fabric is opened: a typo must not leave a half-opened group behind
            throw new IllegalArgumentException("-D" + LOOPS_PROPERTY + "=" + loops
                    + ": the number of default event loops must be a positive integer (unset: one per processor, "
                    + LoopOptions.DEFAULT.loops() + " here)");
        }
        return LoopOptions.DEFAULT.withLoops(n);
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
