package dev.ibex.bench.faults;

import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.net.FaultInjector;
import dev.ibex.softroce.transport.SoftQueuePair;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The fault matrix on soft-roce: every {@link Workload} with traffic in flight × every {@link Fault}, each cell on a
 * fresh {@link SoftNet} (the server in a JVM of its own for {@link Fault#KILL_PEER}), driven through cm-core's callback
 * API and soft-roce's fault knobs ({@code SoftFabric.faults()}), judged against {@link Expectation#of}. Besides its
 * expected outcome a cell passes only if nothing was corrupt, no exception escaped (loops' uncaught handlers, the
 * stack's logs), and the client's connection or endpoint then closes with its one terminal callback.
 *
 * <p>Threading: {@link #run} drives each cell from the calling thread.
 */
public final class FaultMatrix {
    /** The largest message. */
    static final int MAX = 4096;
    private static final int CM_PORT = 7480;
    private static final int STREAM = 1;
    private static final String GROUP = "239.1.2.3";
    private static final Duration SETUP = Duration.ofSeconds(30);

    /**
     * What to run.
     *
     * @param workloads the rows
     * @param faults the columns
     * @param seed the fault generators' seed
     * @param units units of traffic per cell (messages, operations, datagrams)
     * @param timerScale soft-roce's {@code ibex.softroce.timerScale}
     * @param localAckTimeout the connections' local ACK timeout code (4.096 µs × 2^code, then scaled)
     * @param retryCount the connections' retry count
     */
    public record Plan(List<Workload> workloads, List<Fault> faults, long seed, int units, double timerScale,
            int localAckTimeout, int retryCount) {

        /** Every cell, with timers a loaded machine keeps up with. */
        public static Plan full(long seed, int units) {
            return new Plan(List.of(Workload.values()), List.of(Fault.values()), seed, units, 0.25, 18, 6);
        }

        public Plan only(List<Workload> w, List<Fault> f) {
            return new Plan(w, f, seed, units, timerScale, localAckTimeout, retryCount);
        }

        /** How long the transport retries before it gives up: (retry_cnt + 1) local ACK timeouts. */
        public Duration retryBound() {
            return Duration.ofNanos((long) ((retryCount + 1) * (4096L << localAckTimeout) * timerScale));
        }

        /** The RC connections' keepalive interval (probes after this much silence). */
        public Duration keepaliveInterval() {
            return Duration.ofMillis(500);
        }

        public int keepaliveCount() {
            return 3;
        }

        /** How long a silent dead peer takes to be noticed: the retry bound or the keepalive's, whichever is longer. */
        public Duration deadPeerBound() {
            Duration keepalive = keepaliveInterval().multipliedBy(keepaliveCount() + 1);
            return keepalive.compareTo(retryBound()) > 0 ? keepalive : retryBound();
        }

        /** How long an orderly disconnect takes to arrive at most (a DREQ and its retries, scaled). */
        public Duration cmBound() {
            return Duration.ofMillis((long) (4000 * timerScale) + 1000);
        }
    }

    /**
     * One cell's result.
     *
     * @param workload the row
     * @param fault the column
     * @param expected what it had to show
     * @param measured what it showed
     * @param pass whether that was the expected outcome, with nothing corrupt and nothing escaped
     * @param detail counts and timings behind it
     * @param seconds how long the cell took
     */
    public record Cell(Workload workload, Fault fault, Expectation expected, String measured, boolean pass,
            String detail, double seconds) {
    }

    private final Plan plan;
    private final PrintStream log;
    private final LoggedFailures logged;

    private FaultMatrix(Plan plan, PrintStream log, LoggedFailures logged) {
        this.plan = plan;
        this.log = log;
        this.logged = logged;
    }

    /** Runs every cell of {@code plan}, printing one line per cell to {@code log}. */
    public static List<Cell> run(Plan plan, PrintStream log) {
        List<Cell> cells = new ArrayList<>();
        try (LoggedFailures logged = LoggedFailures.install()) {
            FaultMatrix m = new FaultMatrix(plan, log, logged);
            for (Workload w : plan.workloads()) {
                for (Fault f : plan.faults()) {
                    Cell c = m.cell(w, f);
                    log.printf(Locale.ROOT, "matrix %-12s × %-20s %s: %s (%s; %.1f s)%n", w.title(), f.title(),
                            c.pass() ? "PASS" : "FAIL", c.measured(), c.detail(), c.seconds());
                    cells.add(c);
                }
            }
        }
        return cells;
    }

    private Cell cell(Workload w, Fault f) {
        Expectation e = Expectation.of(w, f, plan.deadPeerBound(), plan.cmBound());
        long t0 = System.nanoTime();
        long loggedBefore = logged.count();
        Verdict v;
        try {
            v = w.datagram() ? datagramCell(w, f, e) : rcCell(w, f, e);
        } catch (RuntimeException ex) {
            v = new Verdict("harness failure: " + ex, false, String.valueOf(ex.getCause()));
        }
        List<String> escaped = logged.failures();
        boolean pass = v.pass;
        String detail = v.detail;
        if (logged.count() > loggedBefore) {
            pass = false;
            detail += "; logged: " + escaped.subList((int) Math.min(loggedBefore, escaped.size()), escaped.size());
        }
        return new Cell(w, f, e, v.measured, pass, detail, (System.nanoTime() - t0) / 1e9);
    }

    private record Verdict(String measured, boolean pass, String detail) {
    }

    // ---- RC -------------------------------------------------------------------------------------------------

    private Verdict rcCell(Workload w, Fault f, Expectation e) {
        SoftNet.Options o = options(f);
        try (SoftNet net = SoftNet.open(o); PeerJvm peer = f == Fault.KILL_PEER ? PeerJvm.start(SETUP, "rc",
                Integer.toString(net.udpPort()), Double.toString(plan.timerScale()), Integer.toString(CM_PORT),
                Integer.toString(STREAM)) : null) {
            // keepalive: a client whose requests were all acknowledged when the path died (an echo stream waiting
            // for its echoes) has nothing outstanding, and without it would rightly notice nothing
            ConnectionOptions co = ConnectionOptions.DEFAULT.withConnectTimeout(SETUP)
                    .withLocalAckTimeout(plan.localAckTimeout()).withRetries(plan.retryCount(), 7)
                    .withKeepalive(plan.keepaliveInterval(), plan.keepaliveCount());
            StreamServer server = peer == null ? StreamServer.listen(net.server().next(),
                    SoftNet.serverAddress(CM_PORT), ListenOptions.DEFAULT.withConnection(co), MAX) : null;
            // an event must strike traffic in flight: those cells run until their outcome (path down then up: until
            // the stream went on for as much again after the outage)
            long limit = f.steady() ? plan.units() : Long.MAX_VALUE;
            StreamClient c = w == Workload.RC_SEND ? new EchoClient(STREAM, 8, MAX, limit)
                    : new RegionClient(w.streamKind(), STREAM, w == Workload.RDMA_WRITE ? 8 : 4, limit);
            c.connect(net.client().next(), SoftNet.serverAddress(CM_PORT), co);
            await(c.established()::isDone, SETUP, "connecting");
            if (c.established().isCompletedExceptionally()) {
                return new Verdict("did not connect", false, c.toString());
            }
            SoftQueuePair qp = c.connection().qp() instanceof SoftQueuePair q ? q : null; // its counters outlive it
            long faultAt = strike(net, f, peer, () -> c.verified() >= plan.units() / 4 || c.hasEnded(), () -> {
                if (f == Fault.CLOSE_OTHER_SIDE) {
                    server.stream(STREAM).connection().close();
                }
            });
            long struck = c.verified();
            BooleanSupplier over = f == Fault.PATH_DOWN_UP ? () -> c.verified() >= struck + plan.units() || c.hasEnded()
                    : () -> c.isDone() || c.hasEnded();
            awaitQuietly(over, e.outcome() == Expectation.Outcome.EXACTLY_ONCE ? cellLimit()
                    : e.bound().plusSeconds(5)); // else judged a stall
            long retries = qp == null ? 0 : qp.retries();
            // what a stall leaves behind, taken before healing changes it (the verdict shows it only for a stall)
            String snapshot = "; client QP " + (qp == null ? "-" : qp.describe()) + "; " + c.connection()
                    + "; threads:\n" + threadDump();
            heal(net);
            StreamServer.Side side = server == null ? null : server.stream(STREAM);
            String corrupt = c.corruption() != null ? c.corruption() : side != null ? side.corruption() : null;
            String counts = "verified " + c.verified() + (f.steady() ? "/" + plan.units() : " (" + struck
                    + " when it struck)") + ", " + retries + " retransmissions"
                    + (side == null ? "" : ", server " + side.received());
            Verdict v = judgeRc(c, e, faultAt, corrupt, counts, f == Fault.PATH_DOWN_UP ? struck + plan.units()
                    : plan.units());
            if (v.measured.startsWith("no outcome")) {
                v = new Verdict(v.measured, false, v.detail + snapshot);
            }
            c.close();
            boolean closed = awaitQuietly(c.closed()::isDone, Duration.ofSeconds(15));
            if (!closed) {
                return new Verdict(v.measured, false, v.detail + "; the client did not close within 15 s");
            }
            List<Throwable> uncaught = net.uncaught();
            if (!uncaught.isEmpty()) {
                return new Verdict(v.measured, false, v.detail + "; uncaught on the loops: " + uncaught);
            }
            return v;
        }
    }

    /** The stacks of this JVM's Ibex and soft-roce threads (a stalled cell shows where they wait). */
    private static String threadDump() {
        StringBuilder sb = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("main") || t.getName().startsWith("surefire")) {
                return;
            }
            sb.append("  \"").append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                sb.append("    at ").append(stack[i]).append('\n');
            }
        });
        return sb.toString();
    }

    private Verdict judgeRc(StreamClient c, Expectation e, long faultAt, String corrupt, String counts,
            long enough) {
        Throwable err = c.error();
        String measured;
        boolean ok;
        double after = faultAt == 0 || c.endedNanos() == 0 ? 0 : (c.endedNanos() - faultAt) / 1e9;
        if (corrupt != null) {
            return new Verdict("WRONG DATA: " + corrupt, false, counts);
        }
        if (c.verified() >= enough && err == null && !c.disconnected()) {
            measured = "exactly once, in order";
            ok = e.outcome() == Expectation.Outcome.EXACTLY_ONCE;
        } else if (err instanceof ConnectionFailedException cfe) {
            measured = String.format(Locale.ROOT, "%s after %.2f s", cfe.reason(), after);
            ok = e.outcome() == Expectation.Outcome.TYPED_ERROR && e.reasons().contains(cfe.reason())
                    && after * 1e9 <= e.bound().toNanos();
        } else if (err != null) {
            measured = "untyped error " + err;
            ok = false;
        } else if (c.disconnected()) {
            measured = String.format(Locale.ROOT, "disconnected after %.2f s", after);
            ok = e.outcome() == Expectation.Outcome.DISCONNECTED && after * 1e9 <= e.bound().toNanos();
        } else {
            measured = "no outcome (stalled at " + c.verified() + ")";
            ok = false;
        }
        return new Verdict(measured, ok, counts);
    }

    // ---- UD and multicast ---------------------------------------------------------------------------------

    private Verdict datagramCell(Workload w, Fault f, Expectation e) {
        boolean mc = w == Workload.MULTICAST;
        InetSocketAddress group = new InetSocketAddress(SoftNet.address(GROUP), CM_PORT);
        SoftNet.Options o = options(f);
        try (SoftNet net = SoftNet.open(o); PeerJvm peer = f == Fault.KILL_PEER ? PeerJvm.start(SETUP,
                mc ? "mcast" : "ud", Integer.toString(net.udpPort()), Double.toString(plan.timerScale()),
                Integer.toString(CM_PORT), Integer.toString(STREAM), GROUP) : null) {
            DatagramSink sink = peer != null ? null : mc ? DatagramSink.multicast(net.server().next(),
                    new InetSocketAddress(SoftNet.address(SoftNet.SERVER), 0), group, STREAM, MAX)
                    : DatagramSink.unicast(net.server().next(), SoftNet.serverAddress(CM_PORT), STREAM, MAX);
            InetSocketAddress local = new InetSocketAddress(SoftNet.address(SoftNet.CLIENT), 0);
            DatagramSource src = mc ? DatagramSource.multicast(net.client().next(), local, group, STREAM, MAX,
                    plan.units()) : DatagramSource.unicast(net.client().next(), local, SoftNet.serverAddress(CM_PORT),
                    STREAM, MAX, plan.units());
            FaultInjector.Counts before = counts(net);
            long counted0 = receiverDrops(sink);
            long faultAt = strike(net, f, peer, () -> src.posted() >= plan.units() / 4, () -> {
                if (f == Fault.CLOSE_OTHER_SIDE) {
                    sink.close();
                }
            }, src::start);
            await(() -> src.isDone() && src.completed() + src.failed() >= src.posted(), cellLimit(), "the sends");
            if (sink != null) { // the last datagrams (a delayed or held one arrives within a few ms)
                await(() -> System.nanoTime() - Math.max(sink.lastArrivalNanos(), faultAt) > 300_000_000L,
                        Duration.ofSeconds(10), "the last datagram");
            }
            heal(net);
            FaultInjector.Counts after = counts(net);
            long dropped = after.dropped() - before.dropped() + after.blackHoled() - before.blackHoled();
            long duplicated = after.duplicated() - before.duplicated();
            long counted = receiverDrops(sink) - counted0; // what the receiving QP dropped and counted
            String counts = "sent " + src.completed() + "/" + plan.units() + (src.failed() > 0 ? " (" + src.failed()
                    + " failed)" : "") + (sink == null ? "" : ", received " + sink.unique() + " + " + sink.duplicates()
                    + " duplicates, " + sink.reordered() + " reordered, " + counted + " dropped by the receiver")
                    + "; injected drops " + dropped + ", duplicates " + duplicated;
            Verdict v;
            if (src.error() != null) {
                v = new Verdict("sender failed: " + src.error(), false, counts);
            } else if (e.outcome() == Expectation.Outcome.SENDER_UNAFFECTED) {
                boolean ok = src.completed() == plan.units() && src.failed() == 0;
                v = new Verdict(ok ? "sender unaffected" : "sends failed", ok, counts);
            } else if (sink.corrupt() > 0 || sink.error() != null) {
                v = new Verdict("WRONG DATA or error at the receiver: " + sink, false, counts);
            } else {
                long lost = src.completed() - sink.unique();
                // a duplicate the receiver dropped (no receive, too long) shows as a drop, not as a duplicate
                boolean ok = src.completed() == plan.units() && sink.duplicates() <= duplicated
                        && lost + (duplicated - sink.duplicates()) == dropped + counted;
                v = new Verdict(ok ? String.format(Locale.ROOT, "counted loss: %d lost = %d injected + %d counted",
                        lost, dropped, counted - (duplicated - sink.duplicates())) : "UNCOUNTED: " + lost + " lost, "
                        + dropped + " injected drops, " + counted + " counted, " + sink.duplicates()
                        + " duplicates received of " + duplicated + " made", ok, counts);
            }
            src.close();
            if (sink != null && f != Fault.CLOSE_OTHER_SIDE && f != Fault.DEVICE_CLOSED) {
                sink.close();
            }
            List<Throwable> uncaught = net.uncaught();
            return uncaught.isEmpty() ? v : new Verdict(v.measured, false, v.detail + "; uncaught: " + uncaught);
        }
    }

    private static long receiverDrops(DatagramSink sink) {
        return sink != null && sink.datagram().qp() instanceof SoftQueuePair q ? q.datagramDrops().total() : 0;
    }

    private static FaultInjector.Counts counts(SoftNet net) {
        FaultInjector.Counts c = net.clientFabric().faults().counts();
        if (net.serverFabric() == null) {
            return c;
        }
        FaultInjector.Counts s = net.serverFabric().faults().counts();
        return new FaultInjector.Counts(c.dropped() + s.dropped(), c.blackHoled() + s.blackHoled(),
                c.duplicated() + s.duplicated(), c.reordered() + s.reordered(), c.delayed() + s.delayed());
    }

    // ---- faults ---------------------------------------------------------------------------------------------

    private SoftNet.Options options(Fault f) {
        SoftNet.Options o = SoftNet.Options.DEFAULT.withTimerScale(plan.timerScale()).withBufferSize(MAX)
                .withExtra(java.util.Map.of("ibex.softroce.fault.seed", Long.toString(plan.seed())));
        return f == Fault.KILL_PEER ? o.withServerElsewhere() : o;
    }

    /** {@link #strike(SoftNet, Fault, PeerJvm, BooleanSupplier, Runnable, Runnable)} for traffic already running. */
    private long strike(SoftNet net, Fault f, PeerJvm peer, BooleanSupplier underWay, Runnable closeOtherSide) {
        return strike(net, f, peer, underWay, closeOtherSide, () -> { });
    }

    /**
     * Applies {@code f}: a steady fault before the traffic starts ({@code start}), an event once it is under way.
     *
     * @return when the event struck (nanoTime), or 0 for a steady fault
     */
    private long strike(SoftNet net, Fault f, PeerJvm peer, BooleanSupplier underWay, Runnable closeOtherSide,
            Runnable start) {
        if (f.steady()) {
            for (SoftFabric fabric : fabrics(net)) {
                switch (f) {
                    case DROP_1 -> fabric.faults().onSend().drop(0.01);
                    case DROP_10 -> fabric.faults().onSend().drop(0.10);
                    case REORDER -> fabric.faults().onSend().reorder(0.05, Duration.ofMillis(2));
                    case DUPLICATE -> fabric.faults().onSend().duplicate(0.05);
                    case DELAY -> fabric.faults().onSend().delay(Duration.ofMillis(2));
                    default -> throw new IllegalStateException(f.name());
                }
            }
            start.run();
            return 0;
        }
        start.run();
        await(underWay, cellLimit(), "the traffic to get under way");
        long at = System.nanoTime();
        switch (f) {
            case PATH_DOWN_UP -> {
                cut(net);
                LockSupport.parkNanos(plan.retryBound().toNanos() / 3);
                heal(net);
            }
            case PATH_DOWN -> cut(net);
            case KILL_PEER -> peer.kill();
            case CLOSE_OTHER_SIDE -> closeOtherSide.run();
            case DEVICE_CLOSED -> net.serverFabric().close();
            default -> throw new IllegalStateException(f.name());
        }
        return at;
    }

    private static List<SoftFabric> fabrics(SoftNet net) {
        return net.serverFabric() == null ? List.of(net.clientFabric())
                : List.of(net.clientFabric(), net.serverFabric());
    }

    /** Black-holes the path both ways, at both ends (multicast is cut where it arrives). */
    private static void cut(SoftNet net) {
        int c = SoftNet.ip(SoftNet.CLIENT);
        int s = SoftNet.ip(SoftNet.SERVER);
        net.clientFabric().faults().blackHole(c, s);
        if (net.serverFabric() != null) {
            net.serverFabric().faults().blackHole(s, c);
        }
    }

    private static void heal(SoftNet net) {
        for (SoftFabric fabric : fabrics(net)) {
            fabric.faults().reset();
        }
    }

    private Duration cellLimit() {
        return Duration.ofSeconds(Math.max(60, plan.units() / 20));
    }

    private static void await(BooleanSupplier done, Duration limit, String what) {
        if (!awaitQuietly(done, limit)) {
            throw new IllegalStateException("no " + what + " within " + limit.toSeconds() + " s");
        }
    }

    private static boolean awaitQuietly(BooleanSupplier done, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return true;
    }
}
