package dev.ibex.samples.ucmatose;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.cm.endpoint.ListenerHandler;
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
 * A port of rdma-core's {@code ucmatose} (RDMA_PS_TCP connections) on the callback API: {@code -c} connections,
 * {@code -C} messages of {@code -S} bytes from the server on each, as many replies from the client, then the server
 * disconnects. Without {@code -s} it is the server.
 */
@Command(name = "ucmatose", sortOptions = false, separator = " ",
        description = "RDMA CM connection test (rdma-core's ucmatose): connect, exchange messages, disconnect.")
public final class Ucmatose extends SampleCommand {
    @Option(names = "-s", paramLabel = "server_address", description = "connect to this server (client role)")
    String serverAddress;
    @Option(names = "-b", paramLabel = "bind_address", description = "server: address to listen on (default any)")
    String bindAddress;
    @Option(names = "-c", paramLabel = "connections", defaultValue = "1") int connections;
    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10") int count;
    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100") int size;
    @Option(names = "-p", paramLabel = "port_number", defaultValue = "7471") int port;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();

    public Ucmatose(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Ucmatose(System.out, System.err)).execute(args));
    }

    /** Completes with the bound address once the server listens. */
    public CompletableFuture<InetSocketAddress> listening() {
        return listening;
    }


    @Override
    public Integer call() {
        if (connections <= 0 || count < 0 || size < 0) {
            err.println("ucmatose: connections must be positive, message count and size not negative");
            return 22;
        }
        boolean server = serverAddress == null;
        InetSocketAddress where = server
                ? (bindAddress == null ? new InetSocketAddress(port) : new InetSocketAddress(bindAddress, port))
                : new InetSocketAddress(serverAddress, port);
        if (where.isUnresolved()) {
            out.println("cmatose: getaddrinfo error: cannot resolve " + where.getHostString());
            return 22;
        }
        if (!server && bindAddress != null) {
            err.println("ucmatose: -b on the client is not supported yet (Connection.connect takes no source address)");
            return 22;
        }
        // every message the peer sends at once must find a receive: the C client connects with rnr_retry_count 0
        ConnectionOptions options = ConnectionOptions.DEFAULT.withReceiveWindow(Math.max(1, count));
        try (SampleRun run = begin(new SampleRun(fabric.open(size), out, err))) {
            CmaTest test = new CmaTest(run, server, connections, count, size);
            if (server) {
                out.println("cmatose: starting server");
                Listener.listen(run.loop(), where, ListenOptions.DEFAULT.withChildrenOnListenerLoop(true)
                        .withConnection(options), new ListenerHandler() {
                            @Override
                            public void onListening(Listener l) {
                                listening.complete(l.localAddress());
                            }

                            @Override
                            public void onConnectionRequest(ConnectionRequest request) {
                                CmaNode node = test.newNode();
                                if (node == null) {
                                    out.println("cmatose: failing connection request");
                                    request.reject(null);
                                } else {
                                    request.accept(node, null, run.loop());
                                }
                            }

                            @Override
                            public void onError(Listener l, Throwable error) {
                                out.println("cmatose: failure trying to listen: " + error.getMessage());
                                listening.completeExceptionally(error);
                                run.finish(1);
                            }
                        });
            } else {
                out.println("cmatose: starting client");
                out.println("cmatose: connecting");
                for (int i = 0; i < connections; i++) {
                    Connection.connect(run.loop(), where, null, options, test.newNode());
                }
            }
            return run.await(fabric.timeout());
        }
    }
}
