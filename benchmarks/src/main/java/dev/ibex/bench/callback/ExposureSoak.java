package dev.ibex.bench.callback;

import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.Json;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.spi.ResourceCounts;
import dev.ibex.cm.spi.ResourceKind;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;

/**
 * The exposure soak (issue 14): 100,000 cycles per mode (three rounds, order rotating, after a warm-up) of expose → the
 * peer RDMA WRITEs 8 bytes through the
 * descriptor → the peer says "done" → revoke, over the callback API between two soft-roce hosts on loopback, each
 * cycle checked (the WRITE landed). The baseline, measured in the same run on the same connection, is the same cycle
 * with one exposure kept for the whole run (descriptor, WRITE, done): the ratio is what exposing and revoking add to
 * a round of traffic. Afterwards the server must hold no live exposure, no buffer, no more regions than before and at
 * most its cached free windows; the modes are {@code WINDOW} (a window over the pool), {@code WINDOW_OVER_REGION}
 * (a window over a region of exactly the bytes, what rxe needs) and {@code REGION} (a region of its own).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ibex.bench.callback.ExposureSoak [--cycles N] [--json FILE] [--help]
 * </pre>
 * Exit status 0 when nothing leaked, 1 otherwise or on failure, 2 on bad usage ({@link Cli}).
 */
public final class ExposureSoak {
    static final Duration LIMIT = Duration.ofMinutes(10);
    private static final long KEEP = -1;

    private ExposureSoak() {
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line. */
    @CommandLine.Command(name = "ExposureSoak", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Expose -> WRITE -> revoke cycles per exposure mode against one exposure kept for the run "
                    + "(callback API, soft-roce on loopback), then a leak check; the figures also as JSON.",
            footer = {"", "Exit status: 0 nothing leaked, 1 something leaked or the run failed, 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--cycles", paramLabel = "N", defaultValue = "100000",
                description = "cycles per mode (default ${DEFAULT-VALUE})")
        int cycles;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", defaultValue = "benchmarks/target/exposure-soak.json",
                description = "the figures as JSON (default ${DEFAULT-VALUE})")
        Path json;

        @Override
        public Integer call() throws IOException {
            if (cycles < 3) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--cycles must be at least 3 (3 rounds)");
            }
            Map<String, Object> results = new LinkedHashMap<>();
            boolean clean = run(System.out, cycles, results);
            Files.createDirectories(json.toAbsolutePath().getParent());
            Files.writeString(json, Json.write(results));
            System.out.println("results: " + json);
            return Cli.status(clean);
        }
    }

    /** Runs the baseline and each mode; prints the table, puts it into {@code results}; returns whether nothing leaked. */
    static boolean run(PrintStream out, int cycles, Map<String, Object> results) {
        Exposer server = new Exposer();
        Writer client = new Writer();
        boolean clean = true;
        try (ConnectedPair pair = ConnectedPair.open(LoopbackHosts.softRoce(7499), 4096, ConnectionOptions.DEFAULT,
                server, client, Duration.ofSeconds(30))) {
            client.peer = pair.client;
            ResourceCounts before = pair.loops.serverGroup().fabric().resources();
            Exposure.Mode[] modes = {null, Exposure.Mode.WINDOW, Exposure.Mode.WINDOW_OVER_REGION,
                Exposure.Mode.REGION};
            for (Exposure.Mode m : modes) { // warm-up
                cyclesPerSecond(pair, server, Math.max(500, cycles / 20), m);
            }
            // rounds with the order rotating, so that load drift on a shared machine hits every mode alike
            int rounds = 3;
            double[][] rates = new double[modes.length][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < modes.length; k++) {
                    int m = (k + r) % modes.length;
                    rates[m][r] = cyclesPerSecond(pair, server, Math.max(1, cycles / rounds), modes[m]);
                }
            }
            double baseline = median(rates[0]);
            out.printf(Locale.ROOT, "%-22s %10s %12s %14s%n", "exposure soak (median of " + rounds + ")", "cycles",
                    "cycles/s", "cost vs kept");
            List<Object> rows = new ArrayList<>();
            for (int m = 0; m < modes.length; m++) {
                double rate = median(rates[m]);
                String name = modes[m] == null ? "kept (baseline)" : modes[m].name().toLowerCase(Locale.ROOT);
                out.printf(Locale.ROOT, "%-22s %10d %12.0f %13.2fx%n", name, (cycles / rounds) * rounds, rate,
                        baseline / rate);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("mode", name);
                row.put("cycles", (cycles / rounds) * rounds);
                row.put("cyclesPerSecond", rate);
                row.put("costVsKept", baseline / rate);
                rows.add(row);
            }
            results.put("title", "exposure soak (median of " + rounds + " rounds)");
            results.put("modes", rows);
            ConnectedPair.await(onLoop(pair.server, () -> {
                server.releaseTarget();
                return null;
            }), LIMIT, "releasing the target");
            int live = ConnectedPair.await(onLoop(pair.server, pair.server::liveExposures), LIMIT, "live exposures");
            ResourceCounts after = pair.loops.serverGroup().fabric().resources();
            int leaks = pair.loops.serverGroup().bufferLeaks().size();
            out.printf(Locale.ROOT, "after %d exposures: %d live, %d held buffers, regions %d -> %d, windows %d -> %d%n",
                    3L * (cycles / rounds) * rounds, live, leaks, before.get(ResourceKind.MEMORY_REGION),
                    after.get(ResourceKind.MEMORY_REGION), before.get(ResourceKind.MEMORY_WINDOW),
                    after.get(ResourceKind.MEMORY_WINDOW));
            clean = live == 0 && leaks == 0
                    && after.get(ResourceKind.MEMORY_REGION) <= before.get(ResourceKind.MEMORY_REGION) + 1
                    && after.get(ResourceKind.MEMORY_WINDOW) <= 2;
            out.println(clean ? "PASS: nothing leaked" : "MISS: something leaked");
            Map<String, Object> leak = new LinkedHashMap<>();
            leak.put("liveExposures", live);
            leak.put("heldBuffers", leaks);
            leak.put("regionsBefore", before.get(ResourceKind.MEMORY_REGION));
            leak.put("regionsAfter", after.get(ResourceKind.MEMORY_REGION));
            leak.put("windowsBefore", before.get(ResourceKind.MEMORY_WINDOW));
            leak.put("windowsAfter", after.get(ResourceKind.MEMORY_WINDOW));
            leak.put("clean", clean);
            results.put("afterwards", leak);
        }
        return clean;
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    private static <T> CompletableFuture<T> onLoop(Connection c, java.util.concurrent.Callable<T> task) {
        CompletableFuture<T> f = new CompletableFuture<>();
        c.loop().execute(() -> {
            try {
                f.complete(task.call());
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** {@code cycles} cycles in {@code mode} (null: one exposure kept); cycles per second. */
    private static double cyclesPerSecond(ConnectedPair pair, Exposer server, int cycles, Exposure.Mode mode) {
        CompletableFuture<Long> done = server.newRun();
        pair.server.loop().execute(() -> server.start(pair.server, cycles, mode, done));
        long nanos = ConnectedPair.await(done, LIMIT, cycles + " exposure cycles (" + mode + ")");
        return cycles / (nanos / 1e9);
    }

    /**
     * The server: exposes a buffer for WRITE (attachment = cycle), sends the descriptor when bound, and on "done"
     * checks the WRITE and revokes; the next cycle starts when the exposure has ended.
     */
    static final class Exposer extends Endpoint {
        private Connection c;
        private Buffer target;
        private Exposure exposure;
        private Exposure.Mode mode;
        private int cycles;
        private int cycle;
        private long startedAt;
        private CompletableFuture<Long> done;

        void start(Connection conn, int n, Exposure.Mode m, CompletableFuture<Long> d) {
            c = conn;
            cycles = n;
            cycle = 0;
            mode = m;
            done = d;
            startedAt = System.nanoTime();
            if (target == null) {
                target = c.allocate();
            }
            if (m == null) {
                exposure = c.expose(target, 0, 8, EnumSet.of(RemoteAccess.WRITE), KEEP);
            } else {
                next();
            }
        }

        private void next() {
            exposure = c.expose(target, 0, 8, EnumSet.of(RemoteAccess.WRITE), mode, cycle);
        }

        @Override
        public void onComplete(Connection conn, Operation op, long attachment) {
            if (op == Operation.BIND_MW) {
                announce();
            }
        }

        private void announce() {
            Buffer b = c.allocate();
            exposure.remote().encode(b.segment(), 0);
            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, RemoteBuffer.BYTES, cycle);
            c.send(b, RemoteBuffer.BYTES + 8, 0);
        }

        @Override
        public void onMessage(Connection conn, Buffer message) {
            message.release();
            if (target.segment().get(ValueLayout.JAVA_LONG, 0) != cycle) {
                fail(new IllegalStateException("cycle " + cycle + ": the WRITE did not land"));
                return;
            }
            if (mode == null) {
                finishCycle();
            } else {
                exposure.revoke(); // the next cycle starts in onExposureEnded
            }
        }

        @Override
        public void onExposureEnded(Connection conn, Exposure e) {
            if (e.end() != Exposure.End.REVOKED) {
                fail(new IllegalStateException("cycle " + cycle + ": the exposure ended " + e.end()));
                return;
            }
            if (mode != null && e == exposure) {
                finishCycle();
            }
        }

        private void finishCycle() {
            cycle++;
            if (cycle == cycles) {
                if (mode == null) {
                    exposure.revoke();
                }
                done.complete(System.nanoTime() - startedAt);
            } else if (mode == null) {
                announce();
            } else {
                next();
            }
        }

        void releaseTarget() {
            if (target != null) {
                target.release();
                target = null;
            }
        }

        @Override
        public void onClosed(Connection conn) {
            releaseTarget();
        }
    }

    /** The client: WRITEs the cycle number through each descriptor, then says "done". */
    static final class Writer extends Endpoint {
        Connection peer;

        @Override
        public void onMessage(Connection c, Buffer message) {
            RemoteBuffer remote = RemoteBuffer.decode(message.segment(), message.offset());
            long n = message.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, message.offset() + RemoteBuffer.BYTES);
            message.release();
            Buffer value = c.allocate();
            value.segment().set(ValueLayout.JAVA_LONG, 0, n);
            c.write(value, 0, 8, remote, 0, 1);
            Buffer doneMsg = c.allocate();
            c.send(doneMsg, 1, 2); // after the WRITE on the same QP: it has landed when this arrives
        }
    }
}
