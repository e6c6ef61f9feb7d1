package dev.ibex.bench.apm;

import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Curve;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Results;
import dev.ibex.bench.report.Target;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.transport.SoftQueuePair;
import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;

/**
 * APM failover time on soft-roce at timer scale 1: for each cell of a grid of local ACK {@code timeout} ×
 * {@code retry_cnt}, an RC pair streams SENDs over a primary path, the path is cut (black hole, both directions) at a
 * random moment and the time from the cut to the first message delivered on the alternate is taken; the pair then
 * heals the path, re-arms with it and the next cut hits the other path. Each cell's p50/p99 is set against the IBA's
 * expectation, (retry_cnt + 1) × 4.096 µs × 2^timeout + RTT, with the RTT (a 64-byte SEND round trip, p50) measured
 * on the same pair in the same run. Target: p99 ≤ 1.1 × expectation.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.ibex.bench.apm.FailoverBench [--cuts N] [--timeouts 8,10,12,14]
 *      [--retries 1,3,7] [--json FILE] [--plots DIR] [--help]
 * </pre>
 * Exit status 0 when every cell meets the target, 1 otherwise or on failure, 2 on bad usage ({@link Cli}).
 */
public final class FailoverBench {
    static final String A = "127.0.0.2";
    static final String A2 = "127.0.0.12";
    static final String B = "127.0.0.3";
    static final String B2 = "127.0.0.13";
    static final int SIZE = 64;
    static final int WINDOW = 64;
    static final long PACE_NANOS = 50_000;

    private final PrintStream out;
    private final SoftFabric fabric;
    private final SoftDevice da;
    private final SoftDevice db;
    private final Arena arena = Arena.ofShared();
    private final SplittableRandom random = new SplittableRandom(42);

    /** One cell's result. */
    record Cell(int timeout, int retryCnt, double expectedMs, double p50Ms, double p99Ms, double maxMs, int cuts,
            int failures) {
        double ratio99() {
            return p99Ms / expectedMs;
        }

        boolean met() {
            return ratio99() <= 1.1;
        }
    }

    FailoverBench(PrintStream out) {
        this.out = out;
        int port = FreePort.on(A, A2, B, B2);
        fabric = (SoftFabric) new SoftRoceProvider().open(ProviderConfig.of(Map.of("ibex.softroce.devices",
                "fa=" + A + "/" + A2 + ",fb=" + B + "/" + B2, "ibex.softroce.port", Integer.toString(port),
                "ibex.softroce.timerScale", "1")));
        da = fabric.softDevices().get(0);
        db = fabric.softDevices().get(1);
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line ({@code ./ibex bench --only failover [options]}). */
    @CommandLine.Command(name = "ibex bench --only failover", mixinStandardHelpOptions = true, sortOptions = false,
            description = "APM failover time on soft-roce at timer scale 1: cut -> first message on the alternate "
                    + "path, per local ACK timeout x retry_cnt, p50/p99 against the IBA's expectation; the cells also "
                    + "as JSON, the curve as a PNG with --plots.",
            footer = {"", "Exit status: 0 every cell within 1.1x, 1 a cell missed or the run failed, 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--cuts", paramLabel = "N", defaultValue = "20",
                description = "path cuts per cell (default ${DEFAULT-VALUE})")
        int cuts;

        @CommandLine.Option(names = "--timeouts", paramLabel = "T,...", split = ",", defaultValue = "8,10,12,14",
                description = "local ACK timeouts (4.096 us x 2^T; default ${DEFAULT-VALUE})")
        int[] timeouts;

        @CommandLine.Option(names = "--retries", paramLabel = "N,...", split = ",", defaultValue = "1,3,7",
                description = "retry counts (default ${DEFAULT-VALUE})")
        int[] retries;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", defaultValue = "benchmarks/target/failover-bench.json",
                description = "the cells as JSON (default ${DEFAULT-VALUE})")
        Path json;

        @CommandLine.Option(names = "--plots", paramLabel = "DIR",
                description = "draw failover time by ACK timeout (PNG) and copy the JSON into DIR, e.g. docs/plots")
        Path plots;

        @Override
        public Integer call() throws IOException {
            if (cuts < 1 || Arrays.stream(timeouts).anyMatch(t -> t < 1 || t > 31)
                    || Arrays.stream(retries).anyMatch(n -> n < 0 || n > 7)) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--cuts at least 1, --timeouts 1..31, --retries 0..7 (the IBA's ranges)");
            }
            try (var bench = new Closer(new FailoverBench(System.out))) {
                List<Cell> cells = bench.b.run(timeouts, retries, cuts);
                RatioTable results = results(cells);
                Results.write(results, json, plots, System.out);
                return Cli.status(cells.stream().allMatch(Cell::met));
            }
        }
    }

    /** The cells as a table (for the JSON) with the failover-time curve. */
    static RatioTable results(List<Cell> cells) {
        RatioTable t = new RatioTable("APM failover time on soft-roce at timer scale 1: cut -> first message "
                + "delivered on the alternate path, p99 vs the IBA's expectation", "IBA expectation");
        Map<String, List<Curve.Point>> series = new LinkedHashMap<>();
        for (Cell c : cells) {
            double tMs = 4.096e-3 * (1L << c.timeout());
            t.add(new Comparison(String.format(Locale.ROOT, "failover p99 (ms), timeout %d (%.2f ms), retry_cnt %d",
                    c.timeout(), tMs, c.retryCnt()), c.expectedMs(), c.p99Ms(), Target.atMost(1.1),
                    String.format(Locale.ROOT, "p50 %.2f ms, max %.2f ms, %d cuts, %d lost QPs", c.p50Ms(), c.maxMs(),
                            c.cuts(), c.failures())));
            series.computeIfAbsent("p99, retry_cnt " + c.retryCnt(), k -> new ArrayList<>())
                    .add(new Curve.Point(tMs, c.p99Ms()));
            series.computeIfAbsent("expected, retry_cnt " + c.retryCnt(), k -> new ArrayList<>())
                    .add(new Curve.Point(tMs, c.expectedMs()));
        }
        t.note("expect = (retry_cnt + 1) x 4.096 us x 2^timeout + RTT (p50 of 64 B SEND round trips, same QPs, same run)");
        t.curve(new Curve("apm-failover", "APM failover on soft-roce: cut to first delivery on the alternate path",
                "local ACK timeout (ms, 4.096 us x 2^T)", "failover time (ms)", true, true, series));
        return t;
    }

    private record Closer(FailoverBench b) implements AutoCloseable {
        @Override
        public void close() {
            b.fabric.close();
            b.arena.close();
        }
    }

    List<Cell> run(int[] timeouts, int[] retries, int cuts) {
        out.printf(Locale.ROOT, "APM failover on soft-roce (timer scale 1, %s): %d cuts per cell, load %s%n",
                "paths " + A + "<->" + B + " and " + A2 + "<->" + B2, cuts, loadAverage());
        List<Cell> cells = new ArrayList<>();
        for (int t : timeouts) {
            for (int n : retries) {
                cells.add(cell(t, n, cuts));
            }
        }
        print(cells);
        return cells;
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    void print(List<Cell> cells) {
        out.println();
        out.println("== APM failover time: cut -> first message delivered on the alternate path");
        out.printf(Locale.ROOT, "%7s %9s %9s %12s %9s %9s %9s %8s %8s %6s  %s%n", "timeout", "T (ms)",
                "retry_cnt", "expect (ms)", "p50 (ms)", "p99 (ms)", "max (ms)", "p50/exp", "p99/exp", "lost QPs",
                "verdict (p99 <= 1.1x)");
        for (Cell c : cells) {
            out.printf(Locale.ROOT, "%7d %9.3f %9d %12.2f %9.2f %9.2f %9.2f %8.2f %8.2f %6d  %s%n", c.timeout(),
                    4.096e-3 * (1L << c.timeout()), c.retryCnt(), c.expectedMs(), c.p50Ms(), c.p99Ms(), c.maxMs(),
                    c.p50Ms() / c.expectedMs(), c.ratio99(), c.failures(), c.met() ? "PASS" : "MISS");
        }
        out.println("   expect = (retry_cnt + 1) x 4.096 us x 2^timeout + RTT (p50 of 64 B SEND round trips on the "
                + "same QPs, this run)");
        out.println();
        out.println("p99/expectation by cell (each # = 0.05, | = 1.1):");
        for (Cell c : cells) {
            int bars = (int) Math.round(c.ratio99() / 0.05);
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < Math.min(bars, 40); i++) {
                b.append(i == 21 ? '|' : '#');
            }
            out.printf(Locale.ROOT, "  t=%2d n=%d %-42s %.2f%n", c.timeout(), c.retryCnt(), b, c.ratio99());
        }
        out.flush();
    }

    // ---- one cell -----------------------------------------------------------------------------------------------

    private double rttMs = -1;

    /**
     * One cell: {@code cuts} measured failovers. A QP that a scheduling stall kills (RETRY_EXC_ERR before it armed,
     * or a stall passed for a dead path) is replaced and counted; a stall that migrated it is re-armed before the cut.
     */
    private Cell cell(int timeout, int retryCnt, int cuts) {
        if (rttMs < 0) {
            try (Pair p = new Pair(18, 7)) {
                rttMs = p.rttMs(); // generous timers: the round trip does not depend on them
            }
        }
        double expected = (retryCnt + 1) * 4.096e-3 * (1L << timeout) + rttMs;
        Histogram h = new Histogram(3);
        int failures = 0;
        Pair p = null;
        try {
            while (h.getTotalCount() < cuts) {
                if (failures > 3 * cuts) {
                    throw new IllegalStateException("timeout " + timeout + " retry_cnt " + retryCnt + ": " + failures
                            + " QPs failed on their own (the machine stalls longer than the retries last)");
                }
                try {
                    if (p == null) {
                        p = new Pair(timeout, retryCnt);
                        p.rearm(p.other());
                        p.armByTraffic();
                    }
                    if (p.state(p.x) != MigState.ARMED || p.state(p.y) != MigState.ARMED) {
                        p.rearm(p.other()); // migrated by a stall: the other path becomes the alternate again
                        p.armByTraffic();
                    }
                    String[] primary = p.primary();
                    long nanos = p.cutAndMeasure(primary, 5 + random.nextInt(20));
                    h.recordValue(nanos / 1000);
                    fabric.faults().heal(ip(primary[0]), ip(primary[1])).heal(ip(primary[1]), ip(primary[0]));
                    p.rearm(primary); // the healed path becomes the alternate of the new primary
                    p.armByTraffic();
                } catch (RuntimeException e) { // the QP failed by itself (RETRY_EXC_ERR: now in ERR)
                    failures++;
                    fabric.faults().reset();
                    if (p != null) {
                        p.close();
                        p = null;
                    }
                }
            }
        } finally {
            if (p != null) {
                p.close();
            }
            fabric.faults().reset();
        }
        Cell c = new Cell(timeout, retryCnt, expected, h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, cuts, failures);
        out.printf(Locale.ROOT, "  timeout %2d retry_cnt %d: p50 %.2f ms, p99 %.2f ms (expect %.2f; rtt %.3f ms)%s%n",
                timeout, retryCnt, c.p50Ms(), c.p99Ms(), expected, rttMs,
                failures == 0 ? "" : "; " + failures + " QP(s) failed by themselves and were replaced");
        return c;
    }

    static int ip(String s) {
        try {
            return Ipv4.toInt(InetAddress.getByName(s));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An RC pair x (on fa) → y (on fb) connected by hand, streaming paced SENDs. */
    private final class Pair implements AutoCloseable {
        final ProtectionDomain pdx = da.allocPd();
        final ProtectionDomain pdy = db.allocPd();
        final CompletionQueue cqx = da.createCompletionQueue(1024, null, 0);
        final CompletionQueue cqy = db.createCompletionQueue(1024, null, 0);
        final QueuePair x;
        final QueuePair y;
        final MemorySegment bx = arena.allocate(1 << 16, 4096);
        final MemorySegment by = arena.allocate(1 << 16, 4096);
        final MemoryRegion mx;
        final MemoryRegion my;
        final CompletionBatch wc = CompletionBatch.allocate(arena, 64);
        final SendBatch sb = SendBatch.allocate(arena, 1, 1);
        final RecvBatch rb = RecvBatch.allocate(arena, 1, 1);
        final int timeout;
        long sent;
        long completed;
        long received;
        long posted;

        Pair(int timeout, int retryCnt) {
            this.timeout = timeout;
            QpCap cap = new QpCap(WINDOW * 2, WINDOW * 2, 1, 1, SIZE);
            x = pdx.createQueuePair(new QpInitAttr(cqx, cqx, null, cap, QpType.RC, true, null));
            y = pdy.createQueuePair(new QpInitAttr(cqy, cqy, null, cap, QpType.RC, true, null));
            mx = pdx.registerMemory(bx, EnumSet.allOf(Access.class));
            my = pdy.registerMemory(by, EnumSet.allOf(Access.class));
            int access = Access.mask(EnumSet.of(Access.LOCAL_WRITE));
            for (QueuePair q : List.of(x, y)) {
                q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(access));
            }
            x.modify(rtr(B, y.qpNum(), 0x200));
            y.modify(rtr(A, x.qpNum(), 0x100));
            x.modify(rts(0x100, retryCnt));
            y.modify(rts(0x200, retryCnt));
            for (int i = 0; i < WINDOW; i++) {
                postRecv(y, my);
                postRecv(x, mx);
            }
        }

        private QpAttr rtr(String to, int qpn, int psn) {
            return new QpAttr().state(QpState.RTR).ahAttr(path(to == B ? da : db, to == B ? A : B, to))
                    .pathMtu(Mtu.MTU_1024).destQpNum(qpn).rqPsn(psn).maxDestRdAtomic(1).minRnrTimer(1);
        }

        private QpAttr rts(int psn, int retryCnt) {
            return new QpAttr().state(QpState.RTS).timeout(timeout).retryCnt(retryCnt).rnrRetry(7).sqPsn(psn)
                    .maxRdAtomic(1);
        }

        AhAttr path(SoftDevice from, String fromIp, String toIp) {
            try {
                return AhAttr.roce(Gid.of(InetAddress.getByName(toIp)), from.gidIndexOf(ip(fromIp)),
                        from.portOf(ip(fromIp)));
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Loads {@code pair} (x's address, y's address) as both ends' alternate and re-arms. */
        void rearm(String[] pair) {
            AhAttr ax = path(da, pair[0], pair[1]);
            AhAttr ay = path(db, pair[1], pair[0]);
            x.modify(new QpAttr().altPath(ax, ax.portNum(), timeout).altPkeyIndex(0).pathMigState(MigState.REARM));
            y.modify(new QpAttr().altPath(ay, ay.portNum(), timeout).altPkeyIndex(0).pathMigState(MigState.REARM));
        }

        /** x's primary path now, as (x's address, y's address). */
        String[] primary() {
            var r = ((SoftQueuePair) x).route();
            return new String[] {Ipv4.toString(r.srcIp()), Ipv4.toString(r.dstIp())};
        }

        /** The path that is not x's primary. */
        String[] other() {
            return primary()[0].equals(A) ? new String[] {A2, B2} : new String[] {A, B};
        }

        MigState state(QueuePair q) {
            return ((SoftQueuePair) q).paths().current().state();
        }

        void armByTraffic() {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (state(x) != MigState.ARMED || state(y) != MigState.ARMED) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the pair did not arm: " + ((SoftQueuePair) x).describe());
                }
                step(true);
                Thread.onSpinWait();
            }
        }

        /** The p50 round trip of 64-byte SENDs x → y → x, in ms. */
        double rttMs() {
            Histogram h = new Histogram(3);
            for (int i = 0; i < 2000; i++) {
                long t0 = System.nanoTime();
                send(x, mx, 1);
                awaitRecv(cqy, y, my);
                send(y, my, 2);
                awaitRecv(cqx, x, mx);
                h.recordValue((System.nanoTime() - t0) / 100); // 0.1 µs units
                drainSends();
            }
            return h.getValueAtPercentile(50) / 10_000.0;
        }

        private void awaitRecv(CompletionQueue cq, QueuePair q, MemoryRegion mr) {
            long deadline = System.nanoTime() + 5_000_000_000L;
            for (;;) {
                int k = cq.poll(wc);
                boolean got = false;
                for (int i = 0; i < k; i++) {
                    if (wc.status(i) != WcStatus.SUCCESS) {
                        throw new IllegalStateException("completion " + wc.status(i));
                    }
                    if (wc.wrId(i) == 0) {
                        got = true;
                        postRecv(q, mr);
                    }
                }
                if (got) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no round trip: " + ((SoftQueuePair) x).describe());
                }
                Thread.onSpinWait();
            }
        }

        private void drainSends() {
            // send completions were collected by awaitRecv (same CQ per side, SENDs complete with wr_id 1/2)
        }

        private void send(QueuePair q, MemoryRegion mr, long id) {
            sb.clear(0).wrId(0, id).opcode(0, WrOpcode.SEND).flags(0, SendFlags.INLINE | SendFlags.SIGNALED)
                    .single(0, mr.address(), SIZE, mr.lkey());
            q.postSend(sb, 1);
        }

        private void postRecv(QueuePair q, MemoryRegion mr) {
            rb.clear(0).wrId(0, 0).single(0, mr.address() + 4096, SIZE, mr.lkey());
            q.postRecv(rb, 1);
        }

        /** Paced stream x → y: one SEND per {@link #PACE_NANOS} while the window allows; returns receives seen. */
        int step(boolean send) {
            if (send && sent - completed < WINDOW / 2 && System.nanoTime() - lastSend >= PACE_NANOS) {
                send(x, mx, 3);
                sent++;
                lastSend = System.nanoTime();
            }
            int got = 0;
            int k = cqx.poll(wc);
            for (int i = 0; i < k; i++) {
                if (wc.status(i) != WcStatus.SUCCESS) {
                    throw new IllegalStateException("send failed: " + wc.status(i) + " " + ((SoftQueuePair) x).describe());
                }
                if (wc.wrId(i) == 3) {
                    completed++;
                } else if (wc.wrId(i) == 0) {
                    postRecv(x, mx);
                }
            }
            k = cqy.poll(wc);
            for (int i = 0; i < k; i++) {
                if (wc.wrId(i) == 0 && wc.status(i) == WcStatus.SUCCESS) {
                    got++;
                    received++;
                    postRecv(y, my);
                }
            }
            return got;
        }

        private long lastSend;

        /**
         * Streams for {@code leadMillis}, cuts {@code path} (the primary) and returns the nanoseconds until y delivers
         * a message after having migrated.
         */
        long cutAndMeasure(String[] path, int leadMillis) {
            long until = System.nanoTime() + leadMillis * 1_000_000L;
            while (System.nanoTime() < until) {
                step(true);
                Thread.onSpinWait();
            }
            long cut = System.nanoTime();
            fabric.faults().blackHole(ip(path[0]), ip(path[1])).blackHole(ip(path[1]), ip(path[0]));
            long deadline = cut + 30_000_000_000L;
            for (;;) {
                int got = step(true);
                if (got > 0 && state(y) == MigState.MIGRATED) {
                    return System.nanoTime() - cut;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no failover within 30 s: " + ((SoftQueuePair) x).describe());
                }
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() {
            x.close();
            y.close();
            mx.close();
            my.close();
            cqx.close();
            cqy.close();
            pdx.close();
            pdy.close();
        }
    }
}
