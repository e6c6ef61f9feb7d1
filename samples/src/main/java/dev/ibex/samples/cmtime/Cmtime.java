package dev.ibex.samples.cmtime;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
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
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A port of rdma-core's {@code cmtime}: times connection setup and teardown over {@code -c} connections and prints
 * the C tool's table (per step: total ms, slowest connection ms, fastest connection µs, µs per connection). The
 * client measures step by step like the C tool, or with {@code --endpoints} through the endpoint API. The server
 * accepts every connection until it is stopped (like the C server, which runs until killed).
 */
@Command(name = "cmtime", sortOptions = false, separator = " ",
        description = "RDMA CM connection setup timing (rdma-core's cmtime).")
public final class Cmtime extends SampleCommand {
    @Option(names = "-s", paramLabel = "server_address", description = "connect to this server (client role)")
    String serverAddress;
    @Option(names = "-b", paramLabel = "bind_address", description = "bind address (server: listen address)")
    String bindAddress;
    @Option(names = "-c", paramLabel = "connections", defaultValue = "100") int connections;
    @Option(names = "-p", paramLabel = "port_number", defaultValue = "7471") int port;
    @Option(names = "-r", paramLabel = "retries", defaultValue = "2") int retries;
    @Option(names = "-t", paramLabel = "timeout_ms", defaultValue = "2000") int timeoutMs;
    @Option(names = "--repeat", paramLabel = "N", defaultValue = "1",
            description = "client: run the steps N times in this JVM, a table each (the first pays class loading and "
                    + "the JIT: cold; the last is warm)")
    int repeat;
    @Option(names = "--endpoints", description = "client: time Connection.connect and close instead of each CM step")
    boolean endpoints;
    @Option(names = "--loops", paramLabel = "N", defaultValue = "1",
            description = "server: accept on N event loops, the connections spread round-robin over them (each one "
                    + "moved off the listener's loop costs an rdma_migrate_id; default 1: all on the listener's loop, "
                    + "as the C server keeps them on its one thread)")
    int loops;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();
    /** The server's loop threads that established connections (one unless {@code --loops} spread them). */
    private final Set<String> servingThreads = ConcurrentHashMap.newKeySet();

    public Cmtime(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Cmtime(System.out, System.err)).execute(args));
    }

    /** The names of the server's loop threads its connections were established on. */
    Set<String> servingThreads() {
        return Set.copyOf(servingThreads);
    }

    /** Completes with the bound address once the server listens. */
    public CompletableFuture<InetSocketAddress> listening() {
        return listening;
    }


    @Override
    public Integer call() {
        if (connections <= 0 || retries < 0 || retries > 7 || timeoutMs <= 0 || repeat <= 0 || loops <= 0) {
            err.println("cmtime: connections, timeout, repeat and loops must be positive, retries within 0..7");
            return 22;
        }
        boolean server = serverAddress == null;
        InetSocketAddress bind = bindAddress == null ? null : new InetSocketAddress(bindAddress, server ? port : 0);
        InetSocketAddress target = server ? null : new InetSocketAddress(serverAddress, port);
        if ((bind != null && bind.isUnresolved()) || (target != null && target.isUnresolved())) {
            out.println("getaddrinfo error: cannot resolve " + (target != null && target.isUnresolved()
                    ? serverAddress : bindAddress));
            return 22;
        }
        if (endpoints && bind != null && !server) {
            err.println("cmtime: --endpoints cannot bind a source address (Connection.connect takes none)");
            return 22;
        }
        try (SampleRun r = begin(new SampleRun(fabric.open(4096, server ? loops : 1), out, err))) {
            if (server) {
                serve(r, bind == null ? new InetSocketAddress(port) : bind);
            } else if (endpoints) {
                new EndpointTimer(r, target, connections, timeoutMs, retries).start();
            } else {
                steps(r, bind, target, repeat);
            }
            return r.await(fabric.timeout());
        }
    }

    /** One run of the steps, then the next while {@code left} says so and every connection succeeded. */
    private void steps(SampleRun r, InetSocketAddress bind, InetSocketAddress target, int left) {
        new CmSteps(r, bind, target, connections, timeoutMs, retries, status -> {
            if (status != 0 || left <= 1) {
                r.finish(status);
            } else {
                steps(r, bind, target, left - 1);
            }
        }).start();
    }

    private void serve(SampleRun r, InetSocketAddress where) {
        ConnectionOptions options = ConnectionOptions.DEFAULT.withSendQueueDepth(1).withReceiveWindow(1)
                .withMaxInline(0);
        ConnectionHandler quiet = new ConnectionHandler() {
            @Override
            public void onEstablished(Connection c) {
                servingThreads.add(Thread.currentThread().getName()); // the loop the connection ended up on
            }
        };
        // cmtime's client opens all its connections from one address at once, and the C server takes them all: no
        // per-source bound below the listener's own (the default 64 per source would refuse most of a -c 200 burst)
        int halfOpen = ListenOptions.DEFAULT.maxHalfOpen();
        boolean spread = r.group().loops().size() > 1;
        Listener.listen(r.loop(), where, ListenOptions.DEFAULT.withChildrenOnListenerLoop(!spread)
                .withHalfOpen(halfOpen, halfOpen).withConnection(options), new ListenerHandler() {
                    @Override
                    public void onListening(Listener l) {
                        listening.complete(l.localAddress());
                    }

                    @Override
                    public void onConnectionRequest(ConnectionRequest request) {
                        if (spread) {
                            request.accept(quiet); // the listener's round-robin over the group's loops
                        } else {
                            request.accept(quiet, null, r.loop());
                        }
                    }

                    @Override
                    public void onError(Listener l, Throwable error) {
                        out.println("failure trying to listen: " + error.getMessage());
                        listening.completeExceptionally(error);
                        r.finish(1);
                    }
                });
    }
}
