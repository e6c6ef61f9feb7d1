package dev.ibex.bench.setup;

import dev.ibex.bench.callback.LoopbackHosts;
import dev.ibex.bench.callback.Sides;
import dev.ibex.bench.report.Cli;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.ObjectName;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The Java heap an open soft-roce connection holds, per end (docs/benchmarks.md, "The heap a connection holds"): the
 * live objects' class histogram ({@code GC.class_histogram}, after a full collection) before and after {@code
 * --connections} loopback connections are ESTABLISHED, their difference divided by the ends (two per connection), and
 * the classes that make most of it. A young collection during a burst of setups copies what the open connections
 * hold, so this is what its pause grows with; the probe also times one young collection with the connections open and
 * new, and one before they were made.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar dev.ibex.bench.setup.HeapProbe
 * </pre>
 *
 * <p><b>Threading.</b> The command runs on the calling thread; the connections on the two hosts' loops.
 */
@Command(name = "HeapProbe", mixinStandardHelpOptions = true,
        description = "The Java heap an open soft-roce connection holds per end, and the classes that make it.")
public final class HeapProbe implements Callable<Integer> {
    @Option(names = "--connections", description = "connections held open (default: ${DEFAULT-VALUE})")
    int connections = 1000;

    @Option(names = "--top", description = "classes listed (default: ${DEFAULT-VALUE})")
    int top = 20;

    @Option(names = "--cm-port", description = "the server's RDMA CM port (default: ${DEFAULT-VALUE})")
    int cmPort = 7488;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    /** A probe printing to {@code System.out}. */
    public HeapProbe() {
        this(System.out);
    }

    HeapProbe(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new HeapProbe(), args));
    }

    @Override
    public Integer call() throws Exception {
        if (connections < 1 || top < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--connections must be at least 1, --top not negative");
        }
        Sides sides = LoopbackHosts.softRoce(cmPort);
        try (Sides.Loops loops = sides.open(4096)) {
            CompletableFuture<Listener> listening = new CompletableFuture<>();
            ConnectionHandler serverSide = new ConnectionHandler() {
                @Override
                public void onDisconnected(Connection c) {
                    c.close();
                }
            };
            Listener.listen(loops.server(), sides.serverAddress(), ListenOptions.DEFAULT, new ListenerHandler() {
                @Override
                public void onConnectionRequest(ConnectionRequest r) {
                    r.accept(serverSide);
                }

                @Override
                public void onListening(Listener l) {
                    listening.complete(l);
                }

                @Override
                public void onError(Listener l, Throwable e) {
                    listening.completeExceptionally(e);
                }
            });
            Listener listener = listening.get(10, TimeUnit.SECONDS);
            Map<String, long[]> before = histogram();
            long quietPause = youngPauseMillis();
            CountDownLatch up = new CountDownLatch(connections);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Connection> open = new ArrayList<>(connections);
            loops.client().execute(() -> {
                for (int i = 0; i < connections; i++) {
                    open.add(Connection.connect(loops.client(), sides.serverAddress(), null, ConnectionOptions.DEFAULT,
                            new ConnectionHandler() {
                                @Override
                                public void onEstablished(Connection c) {
                                    up.countDown();
                                }

                                @Override
                                public void onError(Connection c, Throwable e) {
                                    failed.compareAndSet(null, e);
                                    up.countDown();
                                }
                            }));
                }
            });
            if (!up.await(60, TimeUnit.SECONDS) || failed.get() != null) {
                throw new IllegalStateException("not all " + connections + " connections were ESTABLISHED within 60 s",
                        failed.get());
            }
            long openPause = youngPauseMillis(); // before the histogram's full collection moves them to the old gen
            Map<String, long[]> after = histogram();
            report(before, after);
            out.printf("young collection: %d ms with them open and new, %d ms before they were%n", openPause,
                    quietPause);
            CountDownLatch closed = new CountDownLatch(1);
            loops.client().execute(() -> {
                open.forEach(Connection::close);
                listener.close();
                closed.countDown();
            });
            closed.await(10, TimeUnit.SECONDS);
        }
        return Cli.OK;
    }

    private void report(Map<String, long[]> before, Map<String, long[]> after) {
        double ends = 2.0 * connections;
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        long total = 0;
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            long bytes = e.getValue()[1] - b[1];
            total += bytes;
            if (bytes > 0) {
                grown.add(Map.entry(e.getKey(), new long[] {e.getValue()[0] - b[0], bytes}));
            }
        }
        grown.sort((x, y) -> Long.compare(y.getValue()[1], x.getValue()[1]));
        out.printf("%d connections open (%d ends): %.1f MB more live heap, %.0f B per end%n", connections,
                connections * 2, total / 1e6, total / ends);
        for (int i = 0; i < Math.min(top, grown.size()); i++) {
            Map.Entry<String, long[]> e = grown.get(i);
            out.printf("%8.0f B per end %6.1f instances per end  %s%n", e.getValue()[1] / ends,
                    e.getValue()[0] / ends, e.getKey());
        }
    }

    /**
     * Allocates garbage until the young generation is collected once, and returns that collection's time in ms (the
     * collector's own count, -1 where no collector names a young generation).
     */
    private static long youngPauseMillis() {
        GarbageCollectorMXBean young = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(g -> g.getName().contains("Young")).findFirst().orElse(null);
        if (young == null) {
            return -1;
        }
        long count = young.getCollectionCount();
        long time = young.getCollectionTime();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (young.getCollectionCount() == count && System.nanoTime() - deadline < 0) {
            sink = new byte[64 * 1024];
        }
        return young.getCollectionTime() - time;
    }

    /** Where {@link #youngPauseMillis} puts its garbage, so that the JIT keeps the allocation. */
    private static volatile byte[] sink;

    /** Class name to {instances, bytes} of the live objects, after the full collection the command makes. */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> m = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                m.put(f[3], new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return m;
    }
}
