package dev.ibex.samples.failover;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.ConnectionEvent;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.SoftRoceProvider;
import dev.ibex.softroce.net.FreePort;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reactive failover demo: two soft-roce hosts in this JVM, each with two ports (server 127.0.0.2 / 127.0.0.12,
 * client 127.0.0.3 / 127.0.0.13). The client streams sequenced messages; the primary path is cut mid-stream, the
 * stream carries on over the alternate, the path comes back and both ends re-arm with it, and a second cut migrates
 * back. Prints a timeline (cut, last message before the server migrated, PATH_MIG on each side, first message
 * after, re-arm) and the counts (sent, received, lost, duplicated). Real timers (scale 1): detection takes about
 * (retry_cnt + 1) × 4.096 µs × 2^timeout. {@link #run(PrintStream, Options)} is the entry point the
 * {@code ./ibex demo} tour calls; {@code main} runs it alone.
 */
@Command(name = "ibex-failover", sortOptions = false, description = "APM failover demo on soft-roce over loopback")
public final class FailoverDemo implements Callable<Integer> {
    static final String SERVER = "127.0.0.2";
    static final String SERVER_ALT = "127.0.0.12";
    static final String CLIENT = "127.0.0.3";
    static final String CLIENT_ALT = "127.0.0.13";

    /**
     * What the demo does.
     *
     * @param messagesPerSecond the stream's rate
     * @param ackTimeout the QPs' local ACK timeout code (4.096 µs × 2^t)
     * @param retryCount {@code retry_cnt}
     * @param settle how long the stream runs before the first cut and after each migration
     * @param timeout the bound of the whole run
     */
    public record Options(int messagesPerSecond, int ackTimeout, int retryCount, Duration settle, Duration timeout) {
        public static final Options DEFAULT = new Options(2000, 14, 3, Duration.ofMillis(400), Duration.ofSeconds(60));
    }

    @Option(names = "--rate", paramLabel = "MSG/S", defaultValue = "2000", description = "messages per second")
    int rate;
    @Option(names = "--ack-timeout", paramLabel = "T", defaultValue = "14",
            description = "local ACK timeout code: 4.096 us x 2^T (default 14: 67 ms)")
    int ackTimeout;
    @Option(names = "--retry-cnt", paramLabel = "N", defaultValue = "3", description = "retry_cnt (default 3)")
    int retries;
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "60", description = "bound of the run")
    int timeoutSeconds;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    private final PrintStream out;

    public FailoverDemo(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FailoverDemo(System.out)).execute(args));
    }

    @Override
    public Integer call() {
        return run(out, new Options(rate, ackTimeout, retries, Options.DEFAULT.settle(),
                Duration.ofSeconds(timeoutSeconds)));
    }

    /** Runs the demo; 0 when every message arrived exactly once and both cuts migrated. */
    public static int run(PrintStream out, Options options) {
        try (Run r = new Run(out, options)) {
            return r.go();
        } catch (RuntimeException e) {
            out.println("failover demo failed: " + e);
            return 1;
        }
    }

    /** One run: the two hosts, the connection, the stream and the timeline. */
    private static final class Run implements AutoCloseable {
        private final PrintStream out;
        private final Options options;
        private long t0 = System.nanoTime();
        private final int port = FreePort.on(SERVER, SERVER_ALT, CLIENT, CLIENT_ALT);
        private final SoftFabric serverFabric;
        private final SoftFabric clientFabric;
        private final EventLoopGroup serverLoops;
        private final EventLoopGroup clientLoops;
        private final AtomicLong sent = new AtomicLong();
        private final BitSet seen = new BitSet();
        private long received;
        private long duplicated;
        private volatile long lastSeq = -1;
        private volatile RdmaConnection serverConnection;
        private DisposableServer server;
        private RdmaConnection client;
        private Disposable stream;
        private final reactor.core.publisher.Sinks.Empty<Void> stop = reactor.core.publisher.Sinks.empty();
        private final java.util.concurrent.CompletableFuture<Void> streamEnded = new java.util.concurrent.CompletableFuture<>();

        Run(PrintStream out, Options options) {
            this.out = out;
            this.options = options;
            serverFabric = open("srv=" + SERVER + "/" + SERVER_ALT);
            clientFabric = open("cli=" + CLIENT + "/" + CLIENT_ALT);
            LoopOptions loops = LoopOptions.DEFAULT.withLoops(1).withCloseTimeout(Duration.ofSeconds(3))
                    .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(4096).withSlabs(64, 1024));
            serverLoops = EventLoopGroup.of(serverFabric, loops.withThreadName("srv-loop"));
            clientLoops = EventLoopGroup.of(clientFabric, loops.withThreadName("cli-loop"));
        }

        private SoftFabric open(String devices) {
            return (SoftFabric) new SoftRoceProvider().open(ProviderConfig.of(Map.of("ibex.softroce.devices", devices,
                    "ibex.softroce.port", Integer.toString(port), "ibex.softroce.cm.timings", "fast")));
        }

        private void log(String what) {
            out.printf("%9.1f ms  %s%n", (System.nanoTime() - t0) / 1e6, what);
        }

        int go() {
            double t = 4.096e-3 * (1L << options.ackTimeout());
            out.printf("APM failover demo: client %s (alternate %s) -> server %s (alternate %s), soft-roce%n",
                    CLIENT, CLIENT_ALT, SERVER, SERVER_ALT);
            out.printf("ACK timeout %d (%.1f ms) x (retry_cnt %d + 1): a dead path is detected after ~%.0f ms%n",
                    options.ackTimeout(), t, options.retryCount(), t * (options.retryCount() + 1));
            ConnectionOptions co = ConnectionOptions.DEFAULT.withLocalAckTimeout(options.ackTimeout())
                    .withRetries(options.retryCount(), 7).withReceiveWindow(256);
            server = RdmaServer.create().runOn(serverLoops).host(SERVER).port(0).connectionOptions(co)
                    .handle(c -> {
                        serverConnection = c;
                        c.events().subscribe(e -> pathEvent("server", e));
                        return c.alternatePath(new InetSocketAddress(SERVER_ALT, 0),
                                new InetSocketAddress(CLIENT_ALT, 0))
                                .then(c.receive().doOnNext(m -> arrived(
                                        m.payload().get(ValueLayout.JAVA_LONG_UNALIGNED, 0))).then());
                    })
                    .bindNow();
            client = RdmaClient.create().runOn(clientLoops).remoteAddress(new InetSocketAddress(SERVER,
                    server.port())).options(co).connectNow(options.timeout());
            t0 = System.nanoTime(); // the timeline starts connected
            client.events().subscribe(e -> pathEvent("client", e));
            client.alternatePath(new InetSocketAddress(CLIENT_ALT, 0), new InetSocketAddress(SERVER_ALT, 0))
                    .block(options.timeout());
            log("connected over " + client.primaryPath() + "; alternate loaded on both ends");
            // the stream ends by completing, not by being disposed: send() then posts every message it was given
            // before it completes, so "sent" counts only messages that went out (a dispose could drop one that the
            // map had counted but send() had not yet posted, and the demo then waited for it in vain)
            stream = client.send(Flux.interval(Duration.ofNanos(1_000_000_000L / options.messagesPerSecond()))
                    .onBackpressureDrop()
                    .takeUntilOther(stop.asMono())
                    .map(i -> {
                        long seq = sent.getAndIncrement();
                        byte[] b = new byte[8];
                        ByteBuffer.wrap(b).order(ByteOrder.nativeOrder()).putLong(seq);
                        return b;
                    })).subscribe(v -> { }, e -> {
                        log("stream failed: " + e);
                        streamEnded.complete(null);
                    }, () -> streamEnded.complete(null));
            awaitArmed();
            pause(options.settle());
            cutAndMigrate(CLIENT, SERVER, 1);
            pause(options.settle());
            clientFabric.faultCommands().apply("heal " + CLIENT + " " + SERVER);
            log("path " + CLIENT + " <-> " + SERVER + " is back: re-arming both ends with it");
            Mono.when(client.rearm(), serverConnection.rearm()).block(options.timeout());
            awaitArmed();
            pause(options.settle());
            cutAndMigrate(CLIENT_ALT, SERVER_ALT, 2);
            pause(options.settle());
            stop.tryEmitEmpty();
            try {
                streamEnded.get(options.timeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                stream.dispose();
                throw new IllegalStateException("the stream did not finish within " + options.timeout(), e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stream.dispose();
                throw new IllegalStateException("interrupted while the stream finished", e);
            }
            long total = sent.get();
            await(() -> received(total), "every message sent to arrive");
            long distinct;
            long dup;
            synchronized (this) {
                distinct = seen.cardinality();
                dup = duplicated;
            }
            long lost = total - distinct;
            out.printf("counts: sent %d, received %d, lost %d, duplicated %d%n", total, distinct + dup, lost, dup);
            out.printf("path now %s (%s)%n", client.primaryPath(), client.pathMigrationState());
            return lost == 0 && dup == 0 ? 0 : 1;
        }

        private synchronized boolean received(long total) {
            return seen.cardinality() >= total;
        }

        private void cutAndMigrate(String a, String b, int migrations) {
            long before = lastSeq;
            clientFabric.faultCommands().apply("cut " + a + " " + b);
            log("cut " + a + " <-> " + b + " (last message before the cut: #" + before + ")");
            await(() -> migrationsSeen >= 2 * migrations, "PATH_MIG on both ends");
            long after = lastSeq;
            await(() -> lastSeq > after, "a message on the new path");
            log("first message after the server migrated: #" + firstAfterMigration + ", stream carries on");
        }

        private volatile int migrationsSeen;
        private volatile long firstAfterMigration = -1;
        private volatile boolean awaitingFirst;
        private volatile boolean clientArmed;
        private volatile boolean serverArmed;

        private void pathEvent(String side, ConnectionEvent e) {
            switch (e.type()) {
                case PATH_ARMED -> {
                    if (side.equals("client")) {
                        clientArmed = true;
                    } else {
                        serverArmed = true;
                    }
                    log("ARMED (" + side + ")");
                }
                case PATH_MIGRATED -> {
                    if (side.equals("server")) {
                        log("last message before the server migrated: #" + lastSeq);
                        awaitingFirst = true;
                    }
                    log("PATH_MIG (" + side + "): now " + e.path());
                    migrationsSeen++;
                }
                case PATH_MIG_ERROR -> log("PATH_MIG_ERR (" + side + "): " + e.cause().getMessage());
                case ALTERNATE_PATH_FAILED -> log("alternate path failed (" + side + "): " + e.cause().getMessage());
                case ERROR -> log("connection error (" + side + "): " + e.cause());
                default -> { }
            }
        }

        private void arrived(long seq) {
            synchronized (this) {
                if (seen.get((int) seq)) {
                    duplicated++;
                } else {
                    seen.set((int) seq);
                }
                received++;
            }
            if (awaitingFirst) {
                awaitingFirst = false;
                firstAfterMigration = seq;
            }
            lastSeq = seq;
        }

        private void awaitArmed() {
            await(() -> serverConnection != null, "the server's connection");
            clientArmed = client.pathMigrationState() == MigState.ARMED;
            serverArmed = serverConnection.pathMigrationState() == MigState.ARMED;
            await(() -> clientArmed && serverArmed, "both ends ARMED");
        }

        private void await(BooleanSupplier condition, String what) {
            long deadline = System.nanoTime() + options.timeout().toNanos();
            while (!condition.getAsBoolean()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("timed out waiting for " + what);
                }
                pause(Duration.ofMillis(1));
            }
        }

        private static void pause(Duration d) {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted");
            }
        }

        @Override
        public void close() {
            if (stream != null) {
                stream.dispose();
            }
            if (client != null) {
                client.disconnect().block(Duration.ofSeconds(5));
            }
            if (server != null) {
                server.disposeNow(Duration.ofSeconds(5));
            }
            serverLoops.close();
            clientLoops.close();
            serverFabric.close();
            clientFabric.close();
        }
    }
}
