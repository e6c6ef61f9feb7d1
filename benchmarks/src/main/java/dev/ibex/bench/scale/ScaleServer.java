package dev.ibex.bench.scale;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.Footprint;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceKind;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import dev.ibex.bench.report.Cli;
import picocli.CommandLine;

/**
 * The scale benchmark's server process: one soft-roce device on {@code --host}, an Ibex echo server with default
 * options (each connection sends back what it receives) and, for the baseline, a TCP echo server on the same
 * address. It prints {@code READY rdma=<port> tcp=<port> pid=<pid>}, then answers commands read from stdin:
 * {@code stats} → {@code STATS} with its memory ({@link MemoryProbe}), live connections, half-open and refused
 * requests, live QPs and the loops' pool slabs, registered bytes, buffers and CQs ({@link Footprint}); {@code histo} → {@code HISTO} with the classes holding most of the heap; {@code quit} →
 * closes everything and exits.
 *
 * <pre>
 * java -XX:NativeMemoryTracking=summary -cp benchmarks.jar dev.ibex.bench.scale.ScaleServer --host 127.0.0.2
 *      --udp-port 47913 [--loops N]
 * </pre>
 */
public final class ScaleServer {
    private ScaleServer() {}

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line the scale driver gives. */
    @CommandLine.Command(name = "ScaleServer", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The scale benchmark's server process: an RDMA and a TCP echo server (started by ScaleBench; "
                    + "READY, then commands on standard input).")
    public static final class Command implements Callable<Integer> {
        @CommandLine.Option(names = "--host", defaultValue = "127.0.0.2", description = "its address (default "
                + "${DEFAULT-VALUE})")
        String host;

        @CommandLine.Option(names = "--udp-port", defaultValue = "0", description = "soft-roce's UDP port")
        int udpPort;

        @CommandLine.Option(names = "--loops", defaultValue = "0", description = "event loops (0: one per processor)")
        int loops;

        @Override
        public Integer call() throws Exception {
            serve(host, udpPort, loops);
            return Cli.OK;
        }
    }

    static void serve(String host, int udpPort, int loops) throws Exception {
        LoopOptions options = LoopOptions.DEFAULT.withThreadName("srv");
        if (loops > 0) {
            options = options.withLoops(loops);
        }
        EventLoopGroup group = EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of(
                "ibex.softroce.devices", "srv=" + host, "ibex.softroce.port", Integer.toString(udpPort))), options);
        DisposableServer server = RdmaServer.create().runOn(group).host(host).port(0)
                .handle(conn -> conn.send(conn.receive()))
                .bindNow(Duration.ofSeconds(30));
        TcpEchoServer tcp = TcpEchoServer.start(host);
        System.out.println("READY rdma=" + server.port() + " tcp=" + tcp.port() + " pid=" + ProcessHandle.current().pid()
                + " loops=" + group.loops().size());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            switch (line.trim()) {
                case "stats" -> {
                    Map<String, Object> m = new LinkedHashMap<>(MemoryProbe.measure());
                    m.put("connections", server.activeConnections());
                    m.put("halfOpen", server.halfOpenConnections());
                    m.put("refused", server.refusedRequests());
                    m.put("qps", group.fabric().resources().get(ResourceKind.QUEUE_PAIR));
                    m.put("cmIds", group.fabric().resources().get(ResourceKind.CM_ID));
                    Footprint f = group.footprint(); // the loops' pools and CQs: they shrink once idle
                    m.put("slabs", f.slabs());
                    m.put("registeredBytes", f.registeredBytes());
                    m.put("poolBuffers", f.buffers());
                    m.put("buffersInUse", f.buffersInUse());
                    m.put("cqs", f.completionQueues());
                    m.put("tcp", tcp.open());
                    System.out.println(KeyValues.format("STATS", m));
                }
                case "histo" -> System.out.println("HISTO " + MemoryProbe.topClasses(12));
                case "quit" -> {
                    tcp.close();
                    server.disposeNow(Duration.ofSeconds(60));
                    group.close();
                    System.out.println("BYE");
                    System.exit(0);
                }
                default -> System.out.println("ERROR unknown command " + line);
            }
        }
        System.exit(0); // the driver went away
    }
}
