package dev.ibex.samples.rping;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
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
 * A port of rdma-core's {@code rping} on the callback API, wire-compatible with it: the client advertises its
 * buffers in {@code struct rping_rdma_info} messages (address, rkey, size; network order), the server RDMA READs
 * the ping data and RDMA WRITEs it back. Either side works against the C tool.
 */
@Command(name = "rping", sortOptions = false, separator = " ",
        description = "RDMA ping-pong (rdma-core's rping): the server RDMA READs the client's ping data and RDMA "
                + "WRITEs it back.")
public final class Rping extends SampleCommand {
    /** rping's receive queue holds two receives; the protocol never has more than one message in flight. */
    private static final int RECEIVE_WINDOW = 2;

    @Option(names = "-s", description = "server side") boolean server;
    @Option(names = "-c", description = "client side") boolean client;
    @Option(names = "-a", paramLabel = "addr",
            description = "address (server: to bind, default any; client: of the server)")
    String address;
    @Option(names = "-p", paramLabel = "port", defaultValue = "7174", description = "port (default 7174)") int port;
    @Option(names = "-C", paramLabel = "count", defaultValue = "0", description = "ping count (default 0: forever)")
    int count;
    @Option(names = "-S", paramLabel = "size", defaultValue = "64",
            description = "ping data size (23..65535, default 64)")
    int size;
    @Option(names = "-v", description = "display ping data") boolean verbose;
    @Option(names = "-V", description = "validate ping data") boolean validate;
    @Option(names = "-d", description = "debug output") boolean debug;
    @Option(names = "-P", description = "persistent server: serve many clients until killed") boolean persistent;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();

    public Rping(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Rping(System.out, System.err)).execute(args));
    }

    /** Completes with the bound address once the server listens (for tests and launchers that wait for it). */
    public CompletableFuture<InetSocketAddress> listening() {
        return listening;
    }


    @Override
    public Integer call() {
        if (server == client) {
            err.println("rping: give exactly one of -s (server) and -c (client)");
            return 22;
        }
        if (size < PingData.MIN_SIZE || size > PingData.MAX_SIZE) {
            err.printf("Invalid size %d (valid range is %d to %d)%n", size, PingData.MIN_SIZE, PingData.MAX_SIZE);
            return 22;
        }
        if (count < 0) {
            err.printf("Invalid count %d%n", count);
            return 22;
        }
        if (client && address == null) {
            err.println("rping: the client needs -a <server address>");
            return 22;
        }
        InetSocketAddress where = address == null ? new InetSocketAddress(port) : new InetSocketAddress(address, port);
        if (where.isUnresolved()) {
            err.println("getaddrinfo failed - invalid hostname or IP address: " + address);
            return 22;
        }
        ConnectionOptions options = ConnectionOptions.DEFAULT.withReceiveWindow(RECEIVE_WINDOW).withSendQueueDepth(16);
        try (SampleRun run = begin(new SampleRun(fabric.open(size), out, err))) {
            if (debug) {
                err.println("provider " + run.group().fabric().providerName() + ", "
                        + (server ? "server on " : "client to ") + where);
            }
            if (server) {
                Listener.listen(run.loop(), where, ListenOptions.DEFAULT.withChildrenOnListenerLoop(true)
                        .withConnection(options), new RpingServer(run, verbose, persistent, listening));
            } else {
                Connection.connect(run.loop(), where, null, options,
                        new RpingClient(run, size, count, verbose, validate));
            }
            return run.await(fabric.timeout());
        }
    }
}
