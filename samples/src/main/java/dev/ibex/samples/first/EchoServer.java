package dev.ibex.samples.first;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.DisposableServer;
import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.PrintStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The first program's server as a process of its own: echoes every message of every connection until stopped.
 * Prints where it listens; {@link EchoClient} in another process connects to it. On soft-roce with default settings
 * the first process gets 127.0.0.1 and a second one the next free loopback address (printed by each).
 */
@Command(name = "echo-server", sortOptions = false, description = "RDMA echo server (the first program's server).")
public final class EchoServer extends SampleCommand {
    @Option(names = "--host", paramLabel = "IP",
            description = "address to listen on, an address of the RDMA device (default: the device's first)")
    String host;
    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7471",
            description = "RDMA CM port (default: ${DEFAULT-VALUE})")
    int port;
    @Mixin FabricOptions fabric = new FabricOptions();

    public EchoServer(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new EchoServer(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() {
        try (SampleRun run = begin(new SampleRun(fabric.open(8192), out, err))) {
            EventLoopGroup loops = run.group();
            String at = host != null ? host : DeviceAddress.first(loops);
            DisposableServer server = RdmaServer.create().runOn(loops).host(at).port(port)
                    .handle(conn -> conn.send(conn.receive()))
                    .bindNow();
            out.printf("echo server on %s listening on %s:%d%n", loops.fabric().providerName(), at, server.port());
            out.flush();
            try {
                return run.await(fabric.timeout());
            } finally {
                server.disposeNow();
            }
        }
    }
}
