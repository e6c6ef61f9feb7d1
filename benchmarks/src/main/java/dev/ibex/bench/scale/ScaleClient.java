package dev.ibex.bench.scale;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.spi.ProviderConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import java.util.concurrent.Callable;
import dev.ibex.bench.report.Cli;
import picocli.CommandLine;

/**
 * A client process of the scale benchmark, on a soft-roce device (or TCP) of its own address. It prints
 * {@code READY} once set up and starts on {@code go}, so the driver can start several at the same moment. Modes:
 * <ul>
 * <li>{@code rdma}: opens {@code --count} Ibex RC connections to the server, at most {@code --concurrency} at once,
 * and echoes one message on each; prints {@code CONNECTED ok= failed= echoed= connectMillis= millis= errors=}; on
 * {@code close} disconnects them all ({@code CLOSED millis=}); on {@code quit} exits.</li>
 * <li>{@code tcp}: the same with TCP sockets (the baseline).</li>
 * <li>{@code probe}: every {@code --interval-ms}, for {@code --duration-s}, opens one Ibex connection, echoes one
 * message and closes it, printing {@code PROBE ok= connectMillis= echoMillis=}; then {@code PROBES n= ok=}.</li>
 * </ul>
 */
public final class ScaleClient {
    static final byte[] PING = "ping-ping-ping-ping".getBytes(StandardCharsets.US_ASCII);
    static final Duration ECHO_LIMIT = Duration.ofSeconds(60);

    private ScaleClient() {}

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line the scale driver gives. */
    @CommandLine.Command(name = "ScaleClient", mixinStandardHelpOptions = true, sortOptions = false,
            description = "A client process of the scale benchmark (started by ScaleBench; READY, then commands on "
                    + "standard input).")
    public static final class Command implements Callable<Integer> {
        @CommandLine.Option(names = "--mode", defaultValue = "rdma", description = "rdma, tcp or probe (default "
                + "${DEFAULT-VALUE})")
        Mode mode;

        @CommandLine.Option(names = "--host", required = true, description = "this process's address (its device)")
        String host;

        @CommandLine.Option(names = "--server", required = true, description = "the server's address")
        String server;

        @CommandLine.Option(names = "--port", required = true, description = "the server's RDMA (or TCP) port")
        int port;

        @CommandLine.Option(names = "--udp-port", description = "soft-roce's UDP port (rdma and probe)")
        Integer udpPort;

        @CommandLine.Option(names = "--count", defaultValue = "1", description = "connections (default ${DEFAULT-VALUE})")
        int count;

        @CommandLine.Option(names = "--concurrency", defaultValue = "200",
                description = "connects at once (default ${DEFAULT-VALUE})")
        int concurrency;

        @CommandLine.Option(names = "--loops", description = "event loops (default: one per processor)")
        Integer loops;

        @CommandLine.Option(names = "--interval-ms", defaultValue = "1000",
                description = "probe: ms between connections (default ${DEFAULT-VALUE})")
        long intervalMs;

        @CommandLine.Option(names = "--duration-s", defaultValue = "40",
                description = "probe: seconds to run (default ${DEFAULT-VALUE})")
        long durationSeconds;

        @Override
        public Integer call() throws Exception {
            run(this);
            return Cli.OK;
        }
    }

    /** What the client does. */
    enum Mode { RDMA, TCP, PROBE }

    static void run(Command a) throws Exception {
        String host = a.host;
        String server = a.server;
        int port = a.port;
        int count = a.count;
        int concurrency = a.concurrency;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        if (a.mode == Mode.TCP) {
            System.out.println("READY");
            awaitCommand(in, "go");
            tcp(in, host, server, port, count, concurrency);
            return;
        }
        LoopOptions options = LoopOptions.DEFAULT.withThreadName("cli");
        if (a.loops != null) {
            options = options.withLoops(a.loops);
        }
        if (a.udpPort == null) {
            throw new IllegalArgumentException("--udp-port is needed for --mode " + a.mode);
        }
        EventLoopGroup group = EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of("ibex.softroce.devices",
                "cli=" + host, "ibex.softroce.port", Integer.toString(a.udpPort))), options);
        RdmaClient client = RdmaClient.create().runOn(group).localHost(host)
                .remoteAddress(new InetSocketAddress(server, port));
        System.out.println("READY loops=" + group.loops().size());
        awaitCommand(in, "go");
        if (a.mode == Mode.PROBE) {
            probe(client, Duration.ofMillis(a.intervalMs), Duration.ofSeconds(a.durationSeconds));
            group.close();
            System.exit(0);
        }
        rdma(in, client, count, concurrency);
        group.close();
        System.exit(0);
    }

    private static void rdma(BufferedReader in, RdmaClient client, int count, int concurrency) throws IOException {
        List<RdmaConnection> open = new CopyOnWriteArrayList<>();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        AtomicInteger echoed = new AtomicInteger();
        // first every connection (the setup rate), then one echo on each
        long start = System.nanoTime();
        Flux.range(0, count).flatMap(i -> client.connect()
                .doOnNext(open::add)
                .onErrorResume(e -> {
                    errors.computeIfAbsent("connect:" + describe(e), k -> new AtomicInteger()).incrementAndGet();
                    return Mono.empty();
                }), concurrency)
                .blockLast(Duration.ofMinutes(10));
        long connected = System.nanoTime();
        Flux.fromIterable(open).flatMap(c -> c.send(Mono.just(PING)).then(c.receive().next()).timeout(ECHO_LIMIT)
                .doOnNext(m -> echoed.incrementAndGet())
                .onErrorResume(e -> {
                    errors.computeIfAbsent("echo:" + describe(e), k -> new AtomicInteger()).incrementAndGet();
                    return Mono.empty();
                }), concurrency)
                .blockLast(Duration.ofMinutes(10));
        long end = System.nanoTime();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", open.size());
        m.put("failed", count - open.size());
        m.put("echoed", echoed.get());
        m.put("connectMillis", TimeUnit.NANOSECONDS.toMillis(connected - start));
        m.put("millis", TimeUnit.NANOSECONDS.toMillis(end - start));
        m.put("errors", errors.isEmpty() ? "none" : errors.toString().replace(' ', '_'));
        System.out.println(KeyValues.format("CONNECTED", m));
        awaitCommand(in, "close");
        long t0 = System.nanoTime();
        open.forEach(RdmaConnection::dispose);
        Flux.fromIterable(open).flatMap(RdmaConnection::onDispose, 512).blockLast(Duration.ofMinutes(5));
        System.out.println("CLOSED millis=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        awaitCommand(in, "quit");
    }

    private static void probe(RdmaClient client, Duration interval, Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        int n = 0;
        int ok = 0;
        long worst = 0;
        List<Long> times = new ArrayList<>();
        while (System.nanoTime() < end) {
            long t0 = System.nanoTime();
            n++;
            String stage = "connect";
            try {
                RdmaConnection c = client.connect().block(Duration.ofSeconds(15)); // the connect timeout is 10 s
                long t1 = System.nanoTime();
                stage = "echo";
                try {
                    c.send(Mono.just(PING)).then(c.receive().next()).block(Duration.ofSeconds(15));
                } finally {
                    c.dispose();
                }
                long t2 = System.nanoTime();
                ok++;
                long ms = TimeUnit.NANOSECONDS.toMillis(t1 - t0);
                times.add(ms);
                worst = Math.max(worst, ms);
                System.out.println("PROBE ok=1 connectMillis=" + ms + " echoMillis="
                        + TimeUnit.NANOSECONDS.toMillis(t2 - t1));
            } catch (RuntimeException e) {
                System.out.println("PROBE ok=0 stage=" + stage + " millis="
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " error=" + describe(e));
            }
            long next = t0 + interval.toNanos();
            long wait = next - System.nanoTime();
            if (wait > 0) {
                sleep(TimeUnit.NANOSECONDS.toMillis(wait));
            }
        }
        Collections.sort(times);
        long median = times.isEmpty() ? -1 : times.get(times.size() / 2);
        System.out.println("PROBES n=" + n + " ok=" + ok + " medianMillis=" + median + " maxMillis=" + worst);
    }

    private static void tcp(BufferedReader in, String host, String server, int port, int count, int concurrency)
            throws Exception {
        List<SocketChannel> open = new CopyOnWriteArrayList<>();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        AtomicInteger echoed = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        AtomicLong lastConnect = new AtomicLong();
        InetSocketAddress local = new InetSocketAddress(InetAddress.getByName(host), 0);
        InetSocketAddress remote = new InetSocketAddress(server, port);
        int threads = Math.min(concurrency, 64);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                while (next.getAndIncrement() < count) {
                    try {
                        SocketChannel c = SocketChannel.open();
                        c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        c.bind(local);
                        c.connect(remote);
                        open.add(c);
                    } catch (IOException e) {
                        errors.computeIfAbsent("connect:" + describe(e), k -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(10, TimeUnit.MINUTES);
        }
        lastConnect.set(System.nanoTime());
        done.clear();
        AtomicInteger nextEcho = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                ByteBuffer buf = ByteBuffer.allocate(PING.length);
                for (int i; (i = nextEcho.getAndIncrement()) < open.size(); ) {
                    SocketChannel c = open.get(i);
                    try {
                        c.write(ByteBuffer.wrap(PING));
                        buf.clear();
                        while (buf.hasRemaining() && c.read(buf) >= 0) {
                            // the echo comes back whole on loopback, usually in one read
                        }
                        if (!buf.hasRemaining()) {
                            echoed.incrementAndGet();
                        }
                    } catch (IOException e) {
                        errors.computeIfAbsent("echo:" + describe(e), k -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get(10, TimeUnit.MINUTES);
        }
        pool.shutdown();
        long end = System.nanoTime();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", open.size());
        m.put("failed", count - open.size());
        m.put("echoed", echoed.get());
        m.put("connectMillis", TimeUnit.NANOSECONDS.toMillis(lastConnect.get() - start));
        m.put("millis", TimeUnit.NANOSECONDS.toMillis(end - start));
        m.put("errors", errors.isEmpty() ? "none" : errors.toString().replace(' ', '_'));
        System.out.println(KeyValues.format("CONNECTED", m));
        awaitCommand(in, "close");
        long t0 = System.nanoTime();
        for (SocketChannel c : open) {
            c.close();
        }
        System.out.println("CLOSED millis=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        awaitCommand(in, "quit");
        System.exit(0);
    }

    private static void awaitCommand(BufferedReader in, String command) throws IOException {
        for (String line; (line = in.readLine()) != null; ) {
            if (line.trim().equals(command)) {
                return;
            }
        }
        System.exit(0); // the driver went away
    }

    static String describe(Throwable e) {
        if (e instanceof dev.ibex.cm.RdmaConnectException x) { // the reason, not the common message prefix
            return ("RdmaConnectException:" + x.reason() + ":" + x.status() + (x.getMessage() != null
                    && x.getMessage().contains("timeout") ? ":timeout" : "")).replace(' ', '_');
        }
        String m = e.getMessage() == null ? "" : e.getMessage();
        int cut = m.indexOf(';');
        m = cut > 0 ? m.substring(0, cut) : m;
        return (e.getClass().getSimpleName() + ":" + (m.length() > 60 ? m.substring(0, 60) : m))
                .replace(' ', '_').replace('=', ':');
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
