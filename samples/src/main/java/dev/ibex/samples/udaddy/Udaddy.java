package dev.ibex.samples.udaddy;

import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A port of rdma-core's {@code udaddy} (UD over RDMA_PS_UDP, SIDR address exchange) on the callback API: each
 * client QP sends {@code -C} datagrams of {@code -S} bytes with its QP number as immediate data; the server replies
 * as many to each. Without {@code -s} it is the server. Unlike the C tool, both roles need {@code -b}: a UD
 * endpoint lives on the device of its address.
 */
@Command(name = "udaddy", sortOptions = false, separator = " ",
        description = "RDMA CM datagram test (rdma-core's udaddy): SIDR resolution and UD sends with replies.")
public final class Udaddy extends SampleCommand {
    @Option(names = "-s", paramLabel = "server_address", description = "resolve this server (client role)")
    String serverAddress;
    @Option(names = "-b", paramLabel = "bind_address", required = true,
            description = "address of the local RDMA device (required)")
    String bindAddress;
    @Option(names = "-c", paramLabel = "connections", defaultValue = "1") int connections;
    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10") int count;
    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100") int size;
    @Option(names = "--port", paramLabel = "port", defaultValue = "7174",
            description = "the service port (fixed at 7174 in the C tool)")
    int port;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();

    public Udaddy(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Udaddy(System.out, System.err)).execute(args));
    }

    /** Completes with the bound address once the server answers SIDR requests. */
    public CompletableFuture<InetSocketAddress> listening() {
        return listening;
    }


    @Override
    public Integer call() {
        if (connections <= 0 || count < 0 || size < 0) {
            err.println("udaddy: connections must be positive, message count and size not negative");
            return 22;
        }
        int messages = size == 0 ? 0 : count;
        boolean server = serverAddress == null;
        InetSocketAddress bind = new InetSocketAddress(bindAddress, server ? port : 0);
        InetSocketAddress target = server ? null : new InetSocketAddress(serverAddress, port);
        if (bind.isUnresolved() || (target != null && target.isUnresolved())) {
            out.println("udaddy: getaddrinfo error: cannot resolve " + (bind.isUnresolved() ? bindAddress
                    : serverAddress));
            return 22;
        }
        try (SampleRun run = begin(new SampleRun(fabric.openForDatagrams(size), out, err))) {
            if (server) {
                out.println("udaddy: starting server");
                DatagramOptions options = DatagramOptions.DEFAULT.withListen(true)
                        .withReceiveWindow(Math.max(64, connections * messages));
                Datagram.bind(run.loop(), bind, options,
                        new UdaddyServer(run, connections, messages, size, listening));
            } else {
                out.println("udaddy: starting client");
                out.println("udaddy: connecting");
                new UdaddyClient(run, bind, target, connections, messages, size);
            }
            return run.await(fabric.timeout());
        }
    }
}
