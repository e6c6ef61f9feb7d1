package dev.ibex.bench.scale;

import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Results;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.softroce.net.FreePort;
import dev.ibex.softroce.net.RequestFlood;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * The scale workload: Ibex's server with thousands of connections, a half-open flood, a connect storm and thousands
 * of multicast groups, each process a JVM of its own on loopback soft-roce, and large messages in this one.
 *
 * <ol>
 * <li><b>connections</b>: a {@link ScaleServer} on {@value #SERVER} (default options, NMT on); {@code clients}
 * {@link ScaleClient} processes on 127.0.0.3… open {@code connections} in all and echo one message on each; the
 * same with TCP against the server's TCP echo first (the setup-rate baseline, same processes' shape). Server memory
 * is measured with no connection, with all of them idle and after they closed ({@link MemoryProbe}); per 1,000 idle
 * connections: NMT committed outside the Java heap + heap used after GC (target ≤ 64 MB), after close back within
 * 10 % of the baseline.</li>
 * <li><b>concurrent connects</b>: one client process opens 1,000 connections at once: 0 failures.</li>
 * <li><b>half-open flood</b>: {@link RequestFlood}s from up to 4 addresses send forged REQs (2,000/s for 40 s) while
 * a probe process on another address connects, echoes and closes once a second: the server's memory growth
 * (target ≤ 100 MB) and the probe's connect time (target &lt; 1 s, every probe succeeding).</li>
 * <li><b>multicast</b>: a {@link MulticastScale} process joins 2,048 groups on one device: threads added, join and
 * leave rates.</li>
 * <li><b>large messages</b>: {@link LargeMessages} (64 KiB, 1 MiB, 16 MiB SEND vs RDMA WRITE).</li>
 * </ol>
 *
 * Every wait is bounded; every process is killed at the end whatever happened.
 */
public final class ScaleBench {
    static final String SERVER = "127.0.0.2";
    static final String PROBE = "127.0.0.30";
    static final String STORM = "127.0.0.31";
    static final String MC_MEMBERS = "127.0.0.50";
    static final String MC_PUBLISHER = "127.0.0.51";
    static final Duration START = Duration.ofSeconds(90);
    static final Duration PHASE = Duration.ofMinutes(10);
    static final List<String> SERVER_JVM = List.of("-XX:NativeMemoryTracking=summary", "-XX:+UseSerialGC",
            "-Xmx2g", "-Xss512k");
    static final List<String> CLIENT_JVM = List.of("-XX:+UseSerialGC", "-Xmx1g", "-Xss512k",
            "-XX:TieredStopAtLevel=1");

    /** What to run and how big. */
    public record Settings(int connections, int clients, int concurrency, int stormConnects, int floodRate,
            int floodSeconds, int floodSources, int groups, boolean large, Path markdown, String parts) {
        /** Every part. */
        public static final String ALL = "connections,storm,flood,multicast,large";
        public static final Settings FULL = new Settings(10_000, 4, 200, 1_000, 2_000, 40, 4, 2_048, true,
                Path.of("benchmarks/target/scale-bench.md"), ALL);
        /** A smoke run: a tenth of everything. */
        public static final Settings QUICK = new Settings(1_000, 2, 100, 200, 2_000, 5, 2, 256, true,
                Path.of("benchmarks/target/scale-bench.md"), ALL);

        /** These settings running only {@code parts} (comma-separated, of {@link #ALL}). */
        public Settings only(String parts) {
            return new Settings(connections, clients, concurrency, stormConnects, floodRate, floodSeconds,
                    floodSources, groups, large, markdown, parts);
        }

        boolean runs(String part) {
            return java.util.Arrays.asList(parts.split(",")).contains(part);
        }
    }

    private final Settings s;
    private final PrintStream out;
    private final Watchdog watchdog;
    private final RatioTable table;
    private final List<Child> children = new ArrayList<>();
    private int udpPort;

    ScaleBench(Settings settings, PrintStream out, Watchdog watchdog, RatioTable table) {
        this.s = settings;
        this.out = out;
        this.watchdog = watchdog;
        this.table = table;
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line ({@code ScaleBench [options]}; {@code ./ibex bench --only scale} runs every part). */
    @CommandLine.Command(name = "ScaleBench", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Ibex at scale on loopback soft-roce, server and clients in JVMs of their own: thousands of "
                    + "connections, concurrent connects, a half-open flood, thousands of multicast groups, large "
                    + "messages; the table also as JSON and Markdown.",
            footer = {"", "Exit status: 0 every target met, 1 a target missed or a part failed, 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--quick", description = "a smoke run: a tenth of everything")
        boolean quick;

        @CommandLine.Option(names = "--connections", paramLabel = "N", description = "connections in all (10,000)")
        Integer connections;

        @CommandLine.Option(names = "--clients", paramLabel = "N", description = "client JVMs (4)")
        Integer clients;

        @CommandLine.Option(names = "--groups", paramLabel = "N", description = "multicast groups (2,048)")
        Integer groups;

        @CommandLine.Option(names = "--flood-seconds", paramLabel = "N", description = "half-open flood length (40)")
        Integer floodSeconds;

        @CommandLine.Option(names = "--flood-rate", paramLabel = "N", description = "forged REQs per second (2,000)")
        Integer floodRate;

        @CommandLine.Option(names = "--no-large", description = "leave out the large messages")
        boolean noLarge;

        @CommandLine.Option(names = "--parts", paramLabel = "PART,...", split = ",",
                description = "parts to run, of " + Settings.ALL + " (default: all)")
        List<String> parts;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", defaultValue = "benchmarks/target/scale-bench.json",
                description = "the table as JSON (default ${DEFAULT-VALUE})")
        Path json;

        @CommandLine.Option(names = "--plots", paramLabel = "DIR",
                description = "draw the measured curves (PNG) and copy the JSON into DIR, e.g. docs/plots")
        Path plots;

        @Override
        public Integer call() throws IOException {
            Settings s = settings();
            Watchdog w = Watchdog.start(Duration.ofMinutes(40));
            RatioTable table = table();
            try {
                run(s, System.out, w, table);
            } finally {
                table.print(System.out);
                Results.write(table, json, plots, System.out);
            }
            return Cli.status(table.allMet());
        }

        Settings settings() {
            Settings s = quick ? Settings.QUICK : Settings.FULL;
            for (Integer v : new Integer[] {connections, clients, groups, floodSeconds, floodRate}) {
                if (v != null && v < 1) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "counts must be positive, got " + v);
                }
            }
            if (parts != null) {
                List<String> known = List.of(Settings.ALL.split(","));
                for (String p : parts) {
                    if (!known.contains(p)) {
                        throw new CommandLine.ParameterException(spec.commandLine(), "--parts " + p + ": one of "
                                + Settings.ALL);
                    }
                }
            }
            return new Settings(connections != null ? connections : s.connections(),
                    clients != null ? clients : s.clients(), s.concurrency(), s.stormConnects(),
                    floodRate != null ? floodRate : s.floodRate(), floodSeconds != null ? floodSeconds
                    : s.floodSeconds(), s.floodSources(), groups != null ? groups : s.groups(), s.large() && !noLarge,
                    s.markdown(), parts != null ? String.join(",", parts) : s.parts());
        }
    }

    /** The table the scale workload fills. */
    public static RatioTable table() {
        return new RatioTable("Ibex at scale: soft-roce on loopback, server and clients in separate JVMs ("
                + HostLoad.describe() + " at start)", "baseline");
    }

    /** Runs every part, adding rows to {@code table} (a part that fails adds a NO DATA row and the next runs). */
    public static void run(Settings settings, PrintStream out, Watchdog watchdog, RatioTable table) {
        ScaleBench b = new ScaleBench(settings, out, watchdog, table);
        try {
            b.udpPort = FreePort.on(b.addresses());
            if (settings.runs("connections")) {
                b.part("connections", b::connections);
            }
            if (settings.runs("storm")) {
                b.part("concurrent connects", b::storm);
            }
            if (settings.runs("flood")) {
                b.part("half-open flood", b::flood);
            }
            if (settings.runs("multicast")) {
                b.part("multicast groups", b::multicast);
            }
            if (settings.large() && settings.runs("large")) {
                b.part("large messages", () -> LargeMessages.run(table, out, watchdog));
            }
        } finally {
            b.children.forEach(Child::close);
        }
        table.note(HostLoad.describe() + " at end");
        b.writeMarkdown();
    }

    private void part(String name, Runnable body) {
        watchdog.phase("scale: " + name);
        out.println("-- scale: " + name + " (" + HostLoad.describe() + ")");
        try {
            body.run();
        } catch (RuntimeException e) {
            out.println("   " + name + " FAILED: " + e.getMessage());
            table.add(new Comparison(name + ": failed", Double.NaN, Double.NaN, Target.figureAtLeast(1),
                    String.valueOf(e.getMessage()).lines().findFirst().orElse("")));
        } finally {
            children.forEach(Child::close);
            children.clear();
        }
    }

    private String[] addresses() {
        List<String> a = new ArrayList<>(List.of(SERVER, PROBE, STORM, MC_MEMBERS, MC_PUBLISHER));
        for (int i = 0; i < s.clients(); i++) {
            a.add(client(i));
        }
        return a.toArray(String[]::new);
    }

    private static String client(int i) {
        return "127.0.0." + (3 + i);
    }

    // ---- processes --------------------------------------------------------------------------------------

    /** A started server process and its ports. */
    private record Server(Child child, int rdmaPort, int tcpPort) {}

    private Server server() {
        Child c = Child.start("server", SERVER_JVM, ScaleServer.class, List.of("--host", SERVER, "--udp-port",
                Integer.toString(udpPort)));
        children.add(c);
        KeyValues ready = KeyValues.parse(c.await("READY", START));
        return new Server(c, (int) ready.getLong("rdma"), (int) ready.getLong("tcp"));
    }

    private Child client(String name, String host, String mode, int port, int count, int concurrency, String... more) {
        List<String> args = new ArrayList<>(List.of("--mode", mode, "--host", host, "--server", SERVER, "--port",
                Integer.toString(port), "--udp-port", Integer.toString(udpPort), "--count", Integer.toString(count),
                "--concurrency", Integer.toString(concurrency)));
        args.addAll(List.of(more));
        Child c = Child.start(name, CLIENT_JVM, ScaleClient.class, args);
        children.add(c);
        return c;
    }

    private static KeyValues stats(Child server) {
        server.send("stats");
        return KeyValues.parse(server.await("STATS", Duration.ofSeconds(60)));
    }

    /** NMT committed outside the Java heap plus heap used after GC: the process's own memory, in bytes. */
    private static double footprint(KeyValues st) {
        long nmt = st.getLong("nmtCommitted");
        long heap = st.getLong("nmtHeapCommitted");
        return nmt < 0 ? Double.NaN : nmt - heap + st.getLong("heapAfterGc");
    }

    private static double mb(double bytes) {
        return bytes / (1 << 20);
    }

    // ---- 1. connections -----------------------------------------------------------------------------------

    private void connections() {
        Server srv = server();
        Child server = srv.child();
        int rdmaPort = srv.rdmaPort();
        int tcpPort = srv.tcpPort();
        int per = s.connections() / s.clients();

        // the baseline: TCP connect/accept + one echo per connection, same processes, same counts
        Totals tcp = wave("tcp", tcpPort, per, s.clients());
        out.printf(Locale.ROOT, "   TCP: %d of %d connected in %.2f s, %d echoed (%s)%n", tcp.ok, tcp.count,
                tcp.connectSeconds, tcp.echoed, tcp.errors);
        closeAll(tcp);
        awaitConnections(server, "tcp", 0);

        // a warm-up wave (the JIT, class loading), so that the baseline below holds what any server holds
        Totals warm = wave("rdma", rdmaPort, Math.min(200, per), 1);
        out.printf(Locale.ROOT, "   warm-up: %d of %d connected, %d echoed%n", warm.ok, warm.count, warm.echoed);
        closeAll(warm);
        awaitConnections(server, "connections", 0);
        KeyValues base = stats(server);
        out.println("   server at rest: " + base.values());

        Totals rdma = wave("rdma", rdmaPort, per, s.clients());
        out.printf(Locale.ROOT, "   Ibex: %d of %d connected in %.2f s, %d echoed (%s)%n", rdma.ok, rdma.count,
                rdma.connectSeconds, rdma.echoed, rdma.errors);
        KeyValues idle = stats(server);
        out.println("   server with " + idle.get("connections", "?") + " idle connections: " + idle.values());
        out.println("   NMT growth by category (MB): " + nmtGrowth(base, idle));
        server.send("histo");
        out.println("   heap by class (bytes): " + server.await("HISTO", Duration.ofSeconds(60)).substring(6));
        double closeSeconds = closeAll(rdma);
        awaitConnections(server, "connections", 0);
        double shrinkSeconds = awaitShrink(server, base);
        KeyValues after = stats(server);
        out.println("   server after close: " + after.values());
        out.println("   NMT after close vs at rest (MB): " + nmtGrowth(base, after));

        double pctTcp = 100.0 * tcp.ok / tcp.count;
        double pctRdma = 100.0 * rdma.ok / rdma.count;
        table.add(new Comparison(String.format(Locale.ROOT, "%,d connections: connected (%%)", s.connections()),
                pctTcp, pctRdma, Target.figureAtLeast(100), "baseline TCP"));
        table.add(new Comparison("  echoed one message (%)", 100.0 * tcp.echoed / tcp.count,
                100.0 * rdma.echoed / rdma.count, Target.figureAtLeast(100), rdma.errors));
        table.add(new Comparison("  setup rate (connections/s)", tcp.ok / tcp.connectSeconds,
                rdma.ok / rdma.connectSeconds, Target.none(), "TCP connect/accept on loopback"));
        double per1000 = 1000.0 / Math.max(1, rdma.ok);
        double footprintIdle = footprint(idle) - footprint(base);
        table.add(new Comparison("  per 1,000 idle: NMT non-heap + heap after GC (MB)", Double.NaN,
                mb(footprintIdle * per1000), Target.figureAtMost(64), "NMT summary, System.gc()"));
        table.add(new Comparison("  per 1,000 idle: Ibex native memory (MB)", Double.NaN,
                mb((idle.getLong("direct") - base.getLong("direct")) * per1000), Target.none(),
                "direct + Arena (pools, soft-roce)"));
        table.add(new Comparison("  per 1,000 idle: heap after GC (MB)", Double.NaN,
                mb((idle.getLong("heapAfterGc") - base.getLong("heapAfterGc")) * per1000), Target.none(), ""));
        table.add(new Comparison("  per 1,000 idle: NMT committed non-heap (MB)", Double.NaN,
                mb((idle.getLong("nmtCommitted") - idle.getLong("nmtHeapCommitted") - base.getLong("nmtCommitted")
                        + base.getLong("nmtHeapCommitted")) * per1000), Target.none(), ""));
        table.add(new Comparison("  per 1,000 idle: RSS (MB)", Double.NaN,
                mb((idle.getLong("rss") - base.getLong("rss")) * per1000), Target.none(), "information"));
        table.add(new Comparison("  after close / at rest (footprint)", mb(footprint(base)), mb(footprint(after)),
                Target.atMost(1.10), "MB at rest vs after close"));
        table.add(new Comparison("  after close / at rest (RSS)", mb(base.getLong("rss")), mb(after.getLong("rss")),
                Target.none(), "information: the JVM keeps freed memory"));
        table.add(new Comparison("  after close / at rest (pool slabs)", base.getLong("slabs"), after.getLong("slabs"),
                Target.atMost(1.10), "idle " + idle.getLong("slabs") + "; back in " + Math.round(shrinkSeconds)
                + " s (idle time 10 s)"));
        table.add(new Comparison("  after close / at rest (CQs)", base.getLong("cqs"), after.getLong("cqs"),
                Target.atMost(1.10), "idle " + idle.getLong("cqs")));
        table.add(new Comparison("  closing all (s)", Double.NaN, closeSeconds, Target.none(), ""));
        server.send("quit");
        server.await("BYE", Duration.ofSeconds(90));
    }

    /** Closes every connection of a wave; the slowest client's closing time in seconds. */
    private static double closeAll(Totals t) {
        t.clients.forEach(c -> c.send("close"));
        double seconds = 0;
        for (Child c : t.clients) {
            seconds = Math.max(seconds, KeyValues.parse(c.await("CLOSED", PHASE)).getLong("millis") / 1e3);
        }
        t.clients.forEach(c -> c.send("quit"));
        return seconds;
    }

    /** NMT categories that grew or shrank by more than 1 MB from {@code a} to {@code b}. */
    private static String nmtGrowth(KeyValues a, KeyValues b) {
        StringBuilder sb = new StringBuilder();
        b.values().forEach((k, v) -> {
            if (k.startsWith("nmt.") && a.values().containsKey(k)) {
                double d = mb(Long.parseLong(v) - a.getLong(k));
                if (Math.abs(d) >= 1) {
                    sb.append(String.format(Locale.ROOT, " %s %+.1f", k.substring(4), d));
                }
            }
        });
        return sb.length() == 0 ? "none" : sb.toString().trim();
    }

    /** A wave of {@code n} client processes ({@code mode} rdma or tcp), started together, and their totals. */
    private Totals wave(String mode, int port, int per, int n) {
        List<Child> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clients.add(client(mode + "-client-" + i, client(i), mode, port, per, s.concurrency()));
        }
        clients.forEach(c -> c.await("READY", START));
        clients.forEach(c -> c.send("go"));
        Totals t = new Totals(clients, per * n);
        for (Child c : clients) {
            KeyValues r = KeyValues.parse(c.await("CONNECTED", PHASE));
            t.ok += (int) r.getLong("ok");
            t.echoed += (int) r.getLong("echoed");
            t.seconds = Math.max(t.seconds, r.getLong("millis") / 1e3);
            t.connectSeconds = Math.max(t.connectSeconds, r.getLong("connectMillis") / 1e3);
            String e = r.get("errors", "none");
            if (!e.equals("none")) {
                t.errors = t.errors.equals("none") ? e : t.errors + "," + e;
            }
        }
        return t;
    }

    private static final class Totals {
        final List<Child> clients;
        final int count;
        int ok;
        int echoed;
        double seconds;
        double connectSeconds;
        String errors = "none";

        Totals(List<Child> clients, int count) {
            this.clients = clients;
            this.count = count;
        }
    }

    /** Waits (bounded) until the server counts {@code n} connections of {@code key}. */
    /**
     * Waits (at most a minute) until the server's pools and CQs are back to what they were at rest: they shrink once
     * idle for {@code BufferPool.Options.idleTime} / {@code LoopOptions.queueIdleTime} (10 s by default).
     *
     * @return the seconds it took
     */
    private double awaitShrink(Child server, KeyValues base) {
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MINUTES.toNanos(1);
        KeyValues st;
        do {
            sleep(1000);
            server.send("stats");
            st = KeyValues.parse(server.await("STATS", Duration.ofSeconds(60)));
        } while ((st.getLong("cqs") > base.getLong("cqs") || st.getLong("slabs") > base.getLong("slabs"))
                && System.nanoTime() < deadline);
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "   pools and CQs %.0f s after close: %d slabs (%d at rest), %d CQs (%d at rest)%n",
                seconds, st.getLong("slabs"), base.getLong("slabs"), st.getLong("cqs"), base.getLong("cqs"));
        return seconds;
    }

    private void awaitConnections(Child server, String key, int n) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        KeyValues st;
        do {
            sleep(1000);
            server.send("stats");
            st = KeyValues.parse(server.await("STATS", Duration.ofSeconds(60)));
        } while (st.getLong(key) != n && System.nanoTime() < deadline);
        if (st.getLong(key) != n) {
            out.println("   the server still counts " + st.getLong(key) + " " + key + " (expected " + n + ")");
        }
    }

    // ---- 2. concurrent connects ---------------------------------------------------------------------------

    private void storm() {
        Server srv = server();
        Child server = srv.child();
        int rdmaPort = srv.rdmaPort();
        Child c = client("storm", STORM, "rdma", rdmaPort, s.stormConnects(), s.stormConnects(), "--loops", "1");
        c.await("READY", START);
        c.send("go");
        KeyValues r = KeyValues.parse(c.await("CONNECTED", PHASE));
        out.println("   " + s.stormConnects() + " concurrent connects from one client: " + r.values());
        table.add(new Comparison(String.format(Locale.ROOT, "%,d concurrent connects, one client: failures",
                s.stormConnects()), Double.NaN, r.getLong("failed"), Target.figureAtMost(0),
                String.format(Locale.ROOT, "%.1f s, %s", r.getLong("millis") / 1e3, r.get("errors", "none"))));
        c.send("close");
        c.await("CLOSED", PHASE);
        c.send("quit");
        server.send("quit");
        server.await("BYE", Duration.ofSeconds(90));
    }

    // ---- 3. half-open flood -------------------------------------------------------------------------------

    private void flood() {
        Server srv = server();
        Child server = srv.child();
        int rdmaPort = srv.rdmaPort();
        Totals warm = wave("rdma", rdmaPort, 200, 1); // warm-up (the JIT), as for the idle connections
        closeAll(warm);
        awaitConnections(server, "connections", 0);
        KeyValues before = stats(server);
        Child probe = client("probe", PROBE, "probe", rdmaPort, 1, 1, "--interval-ms", "1000", "--duration-s",
                Integer.toString(s.floodSeconds()), "--loops", "1");
        probe.await("READY", START);
        List<RequestFlood> floods = new ArrayList<>();
        long sent = 0;
        long refusedSends = 0;
        KeyValues mid;
        try {
            for (int i = 0; i < s.floodSources(); i++) {
                floods.add(new RequestFlood(InetAddress.getByName("127.0.0." + (40 + i)),
                        InetAddress.getByName(SERVER), udpPort, rdmaPort, 1000 + i));
            }
            probe.send("go");
            long start = System.nanoTime();
            long period = TimeUnit.SECONDS.toNanos(1) / s.floodRate();
            long end = start + TimeUnit.SECONDS.toNanos(s.floodSeconds());
            long next = start;
            int k = 0;
            long midAt = start + (end - start) / 2;
            mid = null;
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                while (next <= now && next < end) { // catch up in bursts after a late wake-up
                    if (floods.get(k++ % floods.size()).send()) {
                        sent++;
                    } else {
                        refusedSends++;
                    }
                    next += period;
                }
                if (mid == null && now >= midAt) {
                    mid = stats(server); // a sample while the flood runs (its own GC pauses the flood a moment)
                }
                java.util.concurrent.locks.LockSupport.parkNanos(Math.max(100_000, next - System.nanoTime()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("the flood could not start: " + e.getMessage(), e);
        } finally {
            for (RequestFlood f : floods) {
                try {
                    f.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
        KeyValues during = stats(server);
        KeyValues probes = KeyValues.parse(probe.await("PROBES", PHASE));
        probe.tail().lines().filter(l -> l.startsWith("PROBE ")).forEach(l -> out.println("   " + l));
        out.println("   flood: " + sent + " forged REQs sent (" + refusedSends + " refused by the socket) from "
                + s.floodSources() + " addresses in " + s.floodSeconds() + " s; server mid-flood " + (mid == null
                ? "-" : mid.values()) + ", at the end " + during.values());
        out.println("   probe: " + probes.values());
        out.println("   NMT growth by category during the flood (MB): " + nmtGrowth(before, during));
        double growth = Math.max(mid == null ? 0 : footprint(mid), footprint(during)) - footprint(before);
        table.add(new Comparison(String.format(Locale.ROOT, "half-open flood %,d REQ/s x %d s from %d addresses",
                s.floodRate(), s.floodSeconds(), s.floodSources()), Double.NaN, sent / (double) s.floodSeconds(),
                Target.none(), "forged REQs/s sent; server refused " + during.get("refused", "?") + ", half-open "
                + during.get("halfOpen", "?")));
        table.add(new Comparison("  server memory growth (MB)", Double.NaN, mb(growth), Target.figureAtMost(100),
                "NMT non-heap + heap after GC; RSS +" + Math.round(mb(during.getLong("rss") - before.getLong("rss")))
                + " MB"));
        table.add(new Comparison("  probe connect, worst (ms)", Double.NaN, probes.getDouble("maxMillis"),
                Target.figureAtMost(1000), "median " + probes.get("medianMillis", "?") + " ms"));
        table.add(new Comparison("  probes connected and echoed (%)", Double.NaN,
                100.0 * probes.getLong("ok") / Math.max(1, probes.getLong("n")), Target.figureAtLeast(100),
                probes.get("ok", "?") + " of " + probes.get("n", "?")));
        server.send("quit");
        server.await("BYE", Duration.ofSeconds(90));
    }

    // ---- 4. multicast -------------------------------------------------------------------------------------

    private void multicast() {
        Child mc = Child.start("multicast", CLIENT_JVM, MulticastScale.class, List.of("--host", MC_MEMBERS,
                "--publisher", MC_PUBLISHER, "--udp-port", Integer.toString(udpPort), "--groups",
                Integer.toString(s.groups())));
        children.add(mc);
        KeyValues r = KeyValues.parse(mc.await("MCAST", PHASE));
        out.println("   multicast: " + r.values());
        long added = r.getLong("threadsJoined") - r.getLong("threadsBefore");
        long loops = r.getLong("loops");
        table.add(new Comparison(String.format(Locale.ROOT, "%,d multicast groups, one device: threads added",
                s.groups()), Double.NaN, added, Target.figureAtMost(4), r.getLong("threadsJoined") + " threads in all, "
                + loops + " loops; " + r.get("fdsJoined", "?") + " fds"));
        table.add(new Comparison("  joins per second", Double.NaN, r.getLong("joined") / (r.getLong("joinMillis") / 1e3),
                Target.none(), r.getLong("joined") + " joined in " + r.getLong("joinMillis") + " ms"));
        table.add(new Comparison("  leaves per second", Double.NaN, r.getLong("joined") / (Math.max(1,
                r.getLong("leaveMillis")) / 1e3), Target.none(), "in " + r.getLong("leaveMillis") + " ms"));
        table.add(new Comparison("  sample groups heard (%)", Double.NaN, 100.0 * r.getLong("heard")
                / Math.max(1, r.getLong("tried")), Target.figureAtLeast(100), r.get("heard", "?") + " of "
                + r.get("tried", "?")));
    }

    private void writeMarkdown() {
        if (s.markdown() == null) {
            return;
        }
        StringBuilder b = new StringBuilder("| metric | baseline | Ibex | target | verdict | notes |\n|---|---|---|---|---|---|\n");
        for (Comparison c : table.rows()) {
            b.append("| ").append(c.metric().trim()).append(" | ").append(fig(c.baseline())).append(" | ")
                    .append(fig(c.ibex())).append(" | ").append(c.target()).append(" | ").append(c.verdict())
                    .append(" | ").append(c.spread().replace('|', '/')).append(" |\n");
        }
        try {
            Files.createDirectories(s.markdown().toAbsolutePath().getParent());
            Files.writeString(s.markdown(), b);
            out.println("   (table written to " + s.markdown() + ")");
        } catch (IOException e) {
            out.println("   could not write " + s.markdown() + ": " + e.getMessage());
        }
    }

    private static String fig(double v) {
        return Double.isNaN(v) ? "-" : v >= 1000 ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
