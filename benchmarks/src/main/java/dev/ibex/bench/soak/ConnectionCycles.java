package dev.ibex.bench.soak;

import dev.ibex.bench.faults.EchoClient;
import dev.ibex.bench.faults.SoftNet;
import dev.ibex.bench.faults.StreamServer;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.spi.DeviceContext;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Connect, transfer, disconnect — {@code cycles} times on one soft-roce network, {@code lanes} connections at a time,
 * every fourth one closed by the server: after each {@code sampleEvery} cycles, with every lane idle, a
 * {@link Sample} of Ibex's own counters
 * (live resources, pool buffers) and the process's (NMT committed, heap after GC, threads, fds, RSS). The slope of
 * each metric's floor per 1,000 cycles ({@link Slope#ofFloor}), fitted after a warm-up (the first fifth: pools, JIT and
 * caches settle), must stay within its noise ({@link Sample.Metric#noise()}); a leak of one buffer, thread, fd or resource per cycle shows as
 * about 1,000.
 *
 * <p>Threading: {@link #run} drives everything from the calling thread.
 */
public final class ConnectionCycles {
    private static final int CM_PORT = 7490;
    private static final int MESSAGES = 16;
    private static final int MAX = 1024;
    private static final Duration BOUND = Duration.ofSeconds(30);

    /**
     * What a run found.
     *
     * @param samples every sample taken
     * @param slopes per metric, per 1,000 cycles after the warm-up
     * @param leaks the metrics whose slope is beyond noise, with the figures
     * @param failures cycles that failed (connect, transfer or close), with why
     * @param seconds how long it took
     */
    public record Result(List<Sample> samples, Map<Sample.Metric, Double> slopes, List<String> leaks,
            List<String> failures, double seconds) {

        public boolean passed() {
            return leaks.isEmpty() && failures.isEmpty();
        }
    }

    private ConnectionCycles() {}

    /** Runs {@code cycles} cycles, {@code lanes} at a time, sampling every {@code sampleEvery}. */
    public static Result run(int cycles, int lanes, int sampleEvery, PrintStream log) {
        long t0 = System.nanoTime();
        List<Sample> samples = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        ConnectionOptions options = ConnectionOptions.DEFAULT.withConnectTimeout(BOUND);
        try (SoftNet net = SoftNet.open(SoftNet.Options.DEFAULT.withBufferSize(MAX))) {
            StreamServer server = StreamServer.listen(net.server().next(), SoftNet.serverAddress(CM_PORT),
                    ListenOptions.DEFAULT.withConnection(options), MAX);
            Lane[] lane = new Lane[lanes];
            int done = 0;
            int started = 0;
            samples.add(sample(net, 0));
            log.println("cycles: " + samples.getFirst());
            while (done < cycles) {
                boolean sampleDue = started >= (done / sampleEvery + 1) * sampleEvery; // let the lanes drain first
                for (int i = 0; i < lanes; i++) {
                    if (lane[i] == null && started < cycles && !sampleDue) {
                        EchoClient c = new EchoClient(started + 1, 4, MAX, MESSAGES);
                        c.connect(net.client().loops().get(started % net.client().loops().size()),
                                SoftNet.serverAddress(CM_PORT), options);
                        lane[i] = new Lane(c);
                        started++;
                    } else if (lane[i] != null && lane[i].step(server, failures)) {
                        lane[i] = null;
                        done++;
                        if (done % sampleEvery == 0) { // every lane is idle: the counters are at rest
                            Sample s = sample(net, done);
                            samples.add(s);
                            log.println("cycles: " + s);
                        }
                    }
                }
                pause();
            }
            server.close();
        }
        return judge(samples, failures, (System.nanoTime() - t0) / 1e9);
    }

    /** One cycle in progress. */
    private static final class Lane {
        private final EchoClient c;
        private long closingSince;

        Lane(EchoClient c) {
            this.c = c;
        }

        /**
         * Moves the cycle on: once its messages are echoed it is closed (by the server every fourth time); once both
         * ends have closed it is over. A cycle that makes no progress for the bound fails and is closed.
         *
         * @return whether the cycle is over
         */
        boolean step(StreamServer server, List<String> failures) {
            StreamServer.Side side = server.stream(c.stream());
            if (c.isClosed() && (side == null || side.isClosed())) {
                if (!c.isDone() || c.error() != null || c.corruption() != null) {
                    failures.add(c.toString());
                }
                server.forget(c.stream());
                return true;
            }
            long now = System.nanoTime();
            if (closingSince == 0 && c.isDone()) {
                if (c.stream() % 4 == 0 && side != null && side.connection() != null) {
                    side.connection().close();
                } else {
                    c.close();
                }
                closingSince = now;
            } else if (closingSince != 0 && now - closingSince > 2 * BOUND.toNanos()) {
                failures.add("did not close within " + 2 * BOUND.toSeconds() + " s: " + c + "; " + side);
                server.forget(c.stream());
                return true; // abandoned: one terminal callback is missing, which is the failure
            } else if (closingSince == 0 && now - c.lastProgressNanos() > BOUND.toNanos()) {
                failures.add("no progress for " + BOUND.toSeconds() + " s: " + c + "; " + side);
                c.close();
                closingSince = now;
            }
            return false;
        }
    }

    private static void pause() {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
    }

    private static Sample sample(SoftNet net, long cycles) {
        long resources = net.serverFabric().resources().total() + net.clientFabric().resources().total();
        long[] pool = new long[2];
        for (EventLoopGroup g : List.of(net.server(), net.client())) {
            DeviceContext ctx = g == net.server() ? net.serverDevice() : net.clientDevice();
            for (EventLoop loop : g.loops()) {
                long[] p = await(loop.submit(() -> {
                    BufferPool bp = loop.device(ctx).pool();
                    return new long[] {bp.allocated(), bp.inUse()};
                }));
                pool[0] += p[0];
                pool[1] += p[1];
            }
        }
        return new Sample(cycles, resources, pool[0], pool[1], ProcessGauges.nmtCommittedKb(),
                ProcessGauges.heapAfterGcKb(), ProcessGauges.threads(), ProcessGauges.fds(), ProcessGauges.rssKb());
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("sampling a loop failed: " + e, e);
        }
    }

    private static Result judge(List<Sample> samples, List<String> failures, double seconds) {
        List<Sample> settled = samples.subList(samples.size() / 5, samples.size());
        Map<Sample.Metric, Double> slopes = new EnumMap<>(Sample.Metric.class);
        List<String> leaks = new ArrayList<>();
        for (Sample.Metric m : Sample.Metric.values()) {
            boolean known = settled.stream().allMatch(s -> s.value(m) >= 0);
            double slope = known ? Slope.ofFloor(settled, m) : Double.NaN;
            slopes.put(m, slope);
            if (known && m.noise() > 0 && slope > m.noise()) {
                leaks.add(String.format(Locale.ROOT, "%s grows %.1f per 1,000 cycles (noise ≤ %.1f)", m.title(),
                        slope, m.noise()));
            }
        }
        return new Result(List.copyOf(samples), slopes, leaks, List.copyOf(failures), seconds);
    }
}
