package dev.ibex.bench.rsocket;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.report.Cli;
import dev.ibex.bench.report.HostLoad;
import dev.ibex.bench.report.RatioTable;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.bench.report.Watchdog;
import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.rsocket.CloseableRdmaServer;
import dev.ibex.rsocket.RdmaClientTransport;
import dev.ibex.rsocket.RdmaServerTransport;
import dev.ibex.softroce.net.FreePort;
import io.rsocket.Closeable;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.DefaultPayload;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * RSocket request-response over Ibex (soft-roce on loopback, the {@code rsocket} module's transports) against RSocket
 * over TCP ({@code rsocket-transport-netty}) in the same process and the same rounds: an echo responder ({@code
 * Mono::just}), payloads of 64 B and 16 KiB, 1 and 64 requests in flight; per run an HdrHistogram of round trips
 * (p50, p99) and the request rate. Both sides use RSocket's zero-copy payload decoder; the Ibex sides are two soft
 * devices (server {@value LoopbackHosts#SERVER}, client {@value LoopbackHosts#CLIENT}, one event loop each, default
 * 8 KiB registered buffers: a 16 KiB request is one frame split over 3 messages); TCP binds the server address.
 * Rounds alternate which transport goes first.
 *
 * <p>Target (the design's): RSocket over Ibex ≤ RSocket over TCP latency; the 1-in-flight p50 rows carry it, the
 * rest is {@code info}. {@link #plot} draws the medians (XChart) next to the table.
 *
 * <p><b>Threading.</b> One harness thread; the transports run their own loops.
 */
public final class RSocketBench {
    static final int[] SIZES = {64, 16 * 1024};
    static final int[] IN_FLIGHT = {1, 64};
    static final Duration RUN_LIMIT = Duration.ofSeconds(120);
    /** The warm-up ends after a pass in which the JIT compiled for less than this. */
    static final long QUIET_COMPILE_MILLIS = 100;
    /** The warm-up's longest run by default, in passes over every workload. */
    static final int MAX_WARMUP_PASSES = 10;

    private final PrintStream out;
    private final int rounds;
    private final int sequential;
    private final int concurrent;
    private final int maxWarmupPasses;
    private final Watchdog watchdog;
    /** Medians per transport and workload, for the plot: key "ibex|tcp size inflight metric". */
    private final Map<String, Double> medians = new java.util.TreeMap<>();

    /**
     * @param sequential requests per run with 1 in flight
     * @param concurrent requests per run with 64 in flight
     * @param maxWarmupPasses the most warm-up passes over every workload (at least 1; it stops sooner once the JIT is
     *     quiet)
     */
    public RSocketBench(PrintStream out, int rounds, int sequential, int concurrent, int maxWarmupPasses,
            Watchdog watchdog) {
        this.out = out;
        this.rounds = rounds;
        this.sequential = sequential;
        this.concurrent = concurrent;
        this.maxWarmupPasses = Math.max(1, maxWarmupPasses);
        this.watchdog = watchdog;
    }

    /** The two transports' servers and clients. */
    private record Pair(String name, Closeable server, RSocket client, Runnable closeLoops) implements AutoCloseable {
        @Override
        public void close() {
            client.dispose();
            server.dispose();
            server.onClose().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(10));
            closeLoops.run();
        }
    }

    private static RSocketServer echoServer() {
        return RSocketServer.create(SocketAcceptor.forRequestResponse(Mono::just))
                .payloadDecoder(PayloadDecoder.ZERO_COPY);
    }

    private static RSocket connect(ClientTransport transport) {
        return RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY).connect(transport)
                .block(Duration.ofSeconds(30));
    }

    static Pair ibex() {
        int udp = FreePort.on(LoopbackHosts.SERVER, LoopbackHosts.CLIENT);
        EventLoopGroup server = EventLoopGroup.open("soft-roce", config("srv=" + LoopbackHosts.SERVER, udp),
                options("rsocket-server"));
        EventLoopGroup client = EventLoopGroup.open("soft-roce", config("cli=" + LoopbackHosts.CLIENT, udp),
                options("rsocket-client"));
        try {
            CloseableRdmaServer s = echoServer()
                    .bind(RdmaServerTransport.create(RdmaServer.create().runOn(server).host(LoopbackHosts.SERVER)
                            .port(0)))
                    .block(Duration.ofSeconds(30));
            RSocket c = connect(RdmaClientTransport.create(RdmaClient.create().runOn(client)
                    .remoteAddress(s.address())));
            return new Pair("RSocket/Ibex", s, c, () -> {
                client.close();
                server.close();
            });
        } catch (RuntimeException e) {
            client.close();
            server.close();
            throw e;
        }
    }

    static Pair tcp() {
        CloseableChannel s = echoServer().bind(TcpServerTransport.create(LoopbackHosts.SERVER, 0))
                .block(Duration.ofSeconds(30));
        RSocket c = connect(TcpClientTransport.create(s.address()));
        return new Pair("RSocket/TCP", s, c, () -> { });
    }

    private static ProviderConfig config(String devices, int udp) {
        return ProviderConfig.of(Map.of("ibex.softroce.devices", devices, "ibex.softroce.port", Integer.toString(udp)));
    }

    private static LoopOptions options(String name) {
        return LoopOptions.DEFAULT.withLoops(1).withThreadName(name).withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withSlabs(128, 8192));
    }

    /** One run: {@code requests} echoes of {@code size} bytes, {@code inFlight} at a time. */
    record Run(Histogram roundTrips, long nanos, int requests) {
        double p(double percentile) {
            return roundTrips.getValueAtPercentile(percentile) / 1000.0;
        }

        double rate() {
            return requests / (nanos / 1e9);
        }
    }

    static Run run(RSocket client, int size, int inFlight, int requests) {
        byte[] data = new byte[size];
        Histogram h = new ConcurrentHistogram(3);
        long t0 = System.nanoTime();
        Flux.range(0, requests)
                .flatMap(i -> {
                    long start = System.nanoTime();
                    return client.requestResponse(DefaultPayload.create(data)).doOnNext(p -> {
                        h.recordValue(System.nanoTime() - start);
                        p.release();
                    });
                }, inFlight)
                .then()
                .block(RUN_LIMIT);
        return new Run(h, System.nanoTime() - t0, requests);
    }

    /** Warms up, runs the rounds and adds the rows to {@code table}. */
    public void run(RatioTable table) {
        watchdog.phase("opening RSocket over Ibex and over TCP");
        String warm;
        try (Pair ibex = ibex(); Pair tcp = tcp()) {
            watchdog.phase("warming up RSocket");
            warm = warmUp(ibex, tcp);
            for (int size : SIZES) {
                for (int inFlight : IN_FLIGHT) {
                    measure(table, ibex, tcp, size, inFlight);
                }
            }
        }
        table.note("rsocket: request-response echo (Mono::just), RSocket 1.1.5 with the zero-copy payload decoder, "
                + sequential + " requests per run at 1 in flight, " + concurrent + " at 64; RSocket/Ibex on soft-roce "
                + "devices " + LoopbackHosts.SERVER + "/" + LoopbackHosts.CLIENT + " (one loop each, 8 KiB buffers: "
                + "16 KiB frames travel as 3 messages) vs RSocket/TCP (rsocket-transport-netty) on "
                + LoopbackHosts.SERVER + "; ratio = Ibex / TCP (rates: higher is better); " + warm);
    }

    /**
     * Runs every workload on both transports, pass after pass, until the JIT is quiet: a pass that compiled less than
     * {@value #QUIET_COMPILE_MILLIS} ms, or the most passes it was given ({@link #MAX_WARMUP_PASSES} by default).
     * RSocket's code needs some 20,000 requests to be compiled on 2 CPUs; measured before that, the rounds compare the
     * interpreter's speed and the JIT's share of the CPU, not the transports (docs/benchmarks.md, "RSocket measured
     * warm").
     *
     * @return what the warm-up did, for the table's note
     */
    private String warmUp(Pair ibex, Pair tcp) {
        var jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long before = timed ? jit.getTotalCompilationTime() : 0;
        int passes = 0;
        long last = -1;
        while (passes < maxWarmupPasses) {
            passes++;
            for (int size : SIZES) {
                for (int inFlight : IN_FLIGHT) {
                    int n = inFlight == 1 ? sequential : concurrent;
                    run(tcp.client, size, inFlight, n);
                    run(ibex.client, size, inFlight, n);
                }
            }
            if (!timed) {
                break;
            }
            long now = jit.getTotalCompilationTime();
            last = now - before;
            before = now;
            if (last < QUIET_COMPILE_MILLIS) {
                break;
            }
        }
        return "warm-up: " + passes + " pass(es) of every workload on both transports"
                + (last >= 0 ? ", the last compiling " + last + " ms (quiet below " + QUIET_COMPILE_MILLIS + ")" : "");
    }

    private void measure(RatioTable table, Pair ibex, Pair tcp, int size, int inFlight) {
        String w = (size < 1024 ? size + " B" : size / 1024 + " KiB") + ", " + inFlight + " in flight";
        Rounds p50 = new Rounds("RSocket Ibex/TCP rr " + w + " p50 (us)",
                inFlight == 1 ? Target.atMost(1.0) : Target.none());
        Rounds p99 = new Rounds("  " + w + " p99 (us)", Target.none());
        Rounds rate = new Rounds("  " + w + " requests/s", Target.none());
        int n = inFlight == 1 ? sequential : concurrent;
        for (int r = 1; r <= rounds; r++) {
            watchdog.phase("RSocket " + w + " round " + r);
            Run i;
            Run t;
            if (r % 2 == 1) {
                t = run(tcp.client, size, inFlight, n);
                i = run(ibex.client, size, inFlight, n);
            } else {
                i = run(ibex.client, size, inFlight, n);
                t = run(tcp.client, size, inFlight, n);
            }
            p50.add(t.p(50), i.p(50));
            p99.add(t.p(99), i.p(99));
            rate.add(t.rate(), i.rate());
            out.printf(Locale.ROOT, "rsocket %s round %d: TCP p50 %.1f p99 %.1f us %.0f req/s | Ibex p50 %.1f p99 %.1f "
                    + "us %.0f req/s (%s)%n", w, r, t.p(50), t.p(99), t.rate(), i.p(50), i.p(99), i.rate(),
                    HostLoad.describe());
        }
        table.add(p50.comparison()).add(p99.comparison()).add(rate.comparison());
        record(w, "p50", p50);
        record(w, "p99", p99);
        record(w, "rate", rate);
    }

    private void record(String workload, String metric, Rounds rounds) {
        var c = rounds.comparison();
        medians.put("tcp|" + workload + "|" + metric, c.baseline());
        medians.put("ibex|" + workload + "|" + metric, c.ibex());
    }

    /** The medians as two bar charts (latency at 1 in flight, request rate), or a sentence saying why not. */
    public String plot(Path png) {
        try {
            return RSocketPlot.write(medians, png);
        } catch (RuntimeException | LinkageError | java.io.IOException e) {
            return "no plot (" + e + ")";
        }
    }

    /** Standalone: {@code RSocketBench [--rounds N] [--quick] [--plot FILE] [--json FILE]}. */
    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line. */
    @CommandLine.Command(name = "RSocketBench", mixinStandardHelpOptions = true, sortOptions = false,
            description = "RSocket request-response over Ibex (soft-roce on loopback) vs over TCP, same run; the "
                    + "table also as JSON, the medians as a PNG.",
            footer = {"", "Exit status: 0 every target met, 1 a target missed or the run failed, 2 bad usage."})
    public static final class Command implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
                description = "interleaved rounds (default ${DEFAULT-VALUE})")
        int rounds;

        @CommandLine.Option(names = "--quick", description = "a smoke run: a tenth of the requests")
        boolean quick;

        @CommandLine.Option(names = "--plot", paramLabel = "FILE", defaultValue = "benchmarks/target/rsocket-bench.png",
                description = "the plot (default ${DEFAULT-VALUE})")
        Path png;

        @CommandLine.Option(names = "--json", paramLabel = "FILE", defaultValue = "benchmarks/target/rsocket-bench.json",
                description = "the table as JSON (default ${DEFAULT-VALUE})")
        Path json;

        @Override
        public Integer call() throws java.io.IOException {
            if (rounds < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rounds must be at least 1");
            }
            RatioTable table = new RatioTable("RSocket request-response over Ibex (soft-roce) vs over TCP on "
                    + "loopback (" + HostLoad.describe() + " at start)", "TCP");
            RSocketBench b = forRun(System.out, rounds, quick, Watchdog.start(Duration.ofMinutes(10)));
            try {
                b.run(table);
                table.note("plot: " + b.plot(png));
            } finally {
                table.print(System.out);
                table.writeJson(json);
                System.out.println("results: " + json);
            }
            return Cli.status(table.allMet());
        }
    }

    /** The harness with the default request counts ({@code quick}: a tenth). */
    public static RSocketBench forRun(PrintStream out, int rounds, boolean quick, Watchdog watchdog) {
        return new RSocketBench(out, rounds, quick ? 300 : 3_000, quick ? 1_000 : 10_000, quick ? 1 : MAX_WARMUP_PASSES,
                watchdog);
    }

    static List<String> workloads() {
        List<String> w = new ArrayList<>();
        for (int size : SIZES) {
            for (int inFlight : IN_FLIGHT) {
                w.add((size < 1024 ? size + " B" : size / 1024 + " KiB") + ", " + inFlight + " in flight");
            }
        }
        return w;
    }
}
