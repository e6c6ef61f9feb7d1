package dev.ibex.bench.vm;

import dev.ibex.bench.callback.PingPong;
import dev.ibex.bench.callback.Sides;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ReceiveMode;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;

/**
 * The latency workload's callback {@link PingPong} in a JVM of its own, so that {@link C2Latency} can give it other
 * JIT flags than the bench JVM's: one ping-pong whose loops busy-poll their CQs ({@code cqPollSpin}
 * {@link VmBench#CQ_POLL_SPIN}) on {@code port} and one in CQ-event mode on {@code port + 1}, each warmed up with
 * {@code warmup} round trips (in runs of 1,000), then measured over {@code roundTrips}. Prints one line:
 * {@code spinning typical X us, p99 Y us | events typical X us, p99 Y us} (one-way: round trip / 2).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar dev.ibex.bench.vm.PingPongJvm \
 *     &lt;ip&gt; &lt;port&gt; &lt;warmup&gt; &lt;roundTrips&gt; &lt;size&gt;
 * </pre>
 */
public final class PingPongJvm {
    /**
     * The two-process client's warm-up round trips: past C2's 10,000-invocation threshold, as {@link C2Latency}'s
     * ({@code -Dibex.bench.warmup} sets another: what runs once every fourth message, a credit update, reaches the
     * threshold only after 40,000).
     */
    static final int WARMUP = Integer.getInteger("ibex.bench.warmup", C2Latency.WARMUP);

    /**
     * The two-process client's measured runs of {@code iterations} each, after the warm-up ({@code -Dibex.bench.runs},
     * default 1); each prints a line ({@link MinimalPingPong#runLine}) and the figures are the last run's.
     */
    static final int RUNS = Math.max(1, Integer.getInteger("ibex.bench.runs", 1)); // 0 would leave no figures

    /**
     * The two-process sides' look interval while they spin ({@code LoopOptions.cqPollSpinLookInterval}, rounds of CQ
     * polls between two looks at the poller and the clock; {@code -Dibex.bench.look}, default the loop's).
     */
    static final int LOOK = Integer.getInteger("ibex.bench.look", LoopOptions.DEFAULT.cqPollSpinLookInterval());

    /**
     * The receive window each two-process side grants the other ({@code ConnectionOptions.receiveWindow}: a credit
     * update every quarter of it; {@code -Dibex.bench.window}, default {@link PingPong#WINDOW}).
     */
    static final int WINDOW = Integer.getInteger("ibex.bench.window", PingPong.WINDOW);

    /**
     * The largest SEND in bytes the two-process sides carry inline ({@code ConnectionOptions.maxInline};
     * {@code -Dibex.bench.inline}, default {@link PingPong#options}'s: the message size, at most 64; 0: none, every
     * SEND from its registered buffer as {@link MinimalPingPong}'s default).
     */
    static final int MAX_INLINE = Integer.getInteger("ibex.bench.inline", -1);

    /**
     * Whether the two-process sides take their receives from a window of the connection's own
     * ({@code ReceiveMode.WINDOW}, {@code -Dibex.bench.ownWindow=true}) instead of their loop's shared receive queue,
     * the default; as {@link MinimalPingPong} without {@code -Dibex.bench.mini.srq}.
     */
    static final boolean OWN_WINDOW = Boolean.getBoolean("ibex.bench.ownWindow");

    private PingPongJvm() {
    }

    /** {@return the line naming a two-process side's settings, printed before anything else} */
    static String settingsLine(boolean events) {
        return settingsLine(events, MAX_INLINE, OWN_WINDOW);
    }

    /**
     * {@link #settingsLine(boolean)} with {@code maxInline} ({@link #MAX_INLINE}: negative, the default, unnamed) and
     * {@code ownWindow} ({@link #OWN_WINDOW}: false, the default, unnamed).
     */
    static String settingsLine(boolean events, int maxInline, boolean ownWindow) {
        return String.format(Locale.ROOT, "pingpong settings: %s, look interval %d, receive window %d (credit update "
                + "every %d), warm-up %d, runs %d", events ? "CQ events" : "cqPollSpin " + VmBench.CQ_POLL_SPIN.toMillis()
                + " ms", LOOK, WINDOW, Math.max(1, WINDOW / 4), WARMUP, RUNS)
                + (maxInline < 0 ? "" : ", max inline " + maxInline) + (ownWindow ? ", own receive window (no SRQ)" : "");
    }

    /** The two-process sides' connection options: {@link PingPong#options}, with {@code maxInline} if not negative. */
    static ConnectionOptions options(int size, int maxInline, boolean ownWindow) {
        ConnectionOptions o = PingPong.options(size, WINDOW);
        o = ownWindow ? o.withReceiveMode(ReceiveMode.WINDOW) : o;
        return maxInline < 0 ? o : o.withMaxInline(maxInline);
    }

    /** Milliseconds this JVM's JIT has spent compiling (-1 when it does not say). */
    static long compileMillis() {
        var jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    public static void main(String[] args) {
        if (args.length >= 1 && (args[0].equals("server") || args[0].equals("client"))) {
            if (args.length != 5 && !(args.length == 6 && args[5].equals("events"))) {
                System.err.println("usage: PingPongJvm server|client <ip> <port> <iterations> <size> [events]");
                System.exit(2);
            }
            InetSocketAddress at = new InetSocketAddress(args[1], Integer.parseInt(args[2]));
            System.out.println(oneSide(args, Sides.oneFabric("rdma-core", ProviderConfig.of(java.util.Map.of()), at)));
            System.exit(0);
        }
        if (args.length != 5) {
            System.err.println("usage: PingPongJvm <ip> <port> <warmup> <roundTrips> <size>");
            System.exit(2);
        }
        String ip = args[0];
        int port = Integer.parseInt(args[1]);
        int warmup = Integer.parseInt(args[2]);
        int roundTrips = Integer.parseInt(args[3]);
        int size = Integer.parseInt(args[4]);
        ProviderConfig config = ProviderConfig.of(java.util.Map.of());
        System.out.println(run(p -> Sides.oneFabric("rdma-core", config, new InetSocketAddress(ip, p)), port, warmup,
                roundTrips, size));
        System.exit(0); // the provider's threads are daemons, but leave no doubt
    }

    /**
     * One side of a two-process ping-pong ({@code server|client <ip> <port> <iterations> <size> [events]}, checked by
     * the caller) on {@code sides} (its address is the arguments'), whose loops busy-poll their CQs unless
     * {@code events}.
     *
     * @return the last line to print: {@code pingpong: done} for the server (which prints {@code pingpong: listening}
     *     once it listens), the figures for the client
     */
    static String oneSide(String[] args, Sides sides) {
        int iterations = Integer.parseInt(args[3]);
        int size = Integer.parseInt(args[4]);
        boolean events = args.length == 6;
        Sides s = (events ? sides : sides.withCqPollSpin(VmBench.CQ_POLL_SPIN)).withLookInterval(LOOK);
        System.out.println(settingsLine(events));
        if (args[0].equals("server")) {
            PingPong.echoUntilDisconnected(s, size, options(size, MAX_INLINE, OWN_WINDOW), C2Latency.CHILD_LIMIT,
                    C2Latency.CHILD_LIMIT.multipliedBy(2), () -> System.out.println("pingpong: listening"));
            return "pingpong: done";
        }
        Histogram h = null;
        try (PingPong p = PingPong.connect(s, size, options(size, MAX_INLINE, OWN_WINDOW), VmBench.OPEN_LIMIT)) {
            for (int done = 0; done < WARMUP; done += 1_000) {
                p.run(1_000, VmBench.RUN_LIMIT);
            }
            for (int r = 1; r <= RUNS; r++) {
                long compiling = compileMillis();
                long before = allocatedBytes();
                h = p.run(iterations, VmBench.RUN_LIMIT);
                long after = allocatedBytes();
                System.out.println(MinimalPingPong.runLine(r, RUNS, h.getValueAtPercentile(50),
                        h.getValueAtPercentile(99), compileMillis() - compiling)
                        + (before < 0 || after < 0 ? "" : allocationSuffix(after - before
                                - h.getEstimatedFootprintInBytes(), iterations)));
            }
        }
        return String.format(Locale.ROOT, "pingpong: iterations %d, size %d, one-way typical %.2f us, p99 %.2f us",
                iterations, size, h.getValueAtPercentile(50) / 2e3, h.getValueAtPercentile(99) / 2e3);
    }

    /**
     * Bytes the JVM's threads have allocated on the heap so far (all of them, ended ones included: what JMH's
     * {@code -prof gc} counts), or -1 where the JVM does not count them.
     */
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getTotalThreadAllocatedBytes();
    }

    /**
     * The run line's allocation: {@code bytes} (a run's allocation less its histogram's) per round trip; the run's own
     * bookkeeping (its future, the waiting thread) is in it.
     */
    static String allocationSuffix(long bytes, int roundTrips) {
        return String.format(Locale.ROOT, ", allocated %.2f B per round trip", Math.max(0, bytes) / (double) roundTrips);
    }

    /**
     * Measures both ping-pongs.
     *
     * @param sides the two sides of a pair on a CM port (the rdma-core provider's in the VM)
     * @return the line {@link C2Latency#parse} reads
     */
    static String run(IntFunction<Sides> sides, int port, int warmup, int roundTrips, int size) {
        Sides spinning = sides.apply(port).withCqPollSpin(VmBench.CQ_POLL_SPIN);
        Sides events = sides.apply(port + 1);
        Histogram s;
        Histogram e;
        try (PingPong spin = PingPong.open(spinning, size, VmBench.OPEN_LIMIT);
                PingPong event = PingPong.open(events, size, VmBench.OPEN_LIMIT)) {
            for (int done = 0; done < warmup; done += 1_000) { // a run of each, turn about: both JIT-warm alike
                spin.run(1_000, VmBench.RUN_LIMIT);
                event.run(1_000, VmBench.RUN_LIMIT);
            }
            s = spin.run(roundTrips, VmBench.RUN_LIMIT);
            e = event.run(roundTrips, VmBench.RUN_LIMIT);
        }
        return String.format(Locale.ROOT, "spinning typical %.2f us, p99 %.2f us | events typical %.2f us, p99 %.2f us",
                s.getValueAtPercentile(50) / 2e3, s.getValueAtPercentile(99) / 2e3, e.getValueAtPercentile(50) / 2e3,
                e.getValueAtPercentile(99) / 2e3);
    }
}
