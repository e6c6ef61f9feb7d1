package dev.ibex.samples.apm;

import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.cm.endpoint.Listener;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A port of the seeds' APM example ({@code apm.c}, "RDMA Aware Networks Programming User Manual" §9.1) on the
 * callback API: an RC connection whose two ends each load an alternate path after ESTABLISHED, then exchange
 * {@code -c} messages, {@code -w} ms apart; the client forces a migration after {@code -m} iterations, or the
 * primary path is cut (automatic migration) — on soft-roce from outside the process with the fabric's fault control
 * ({@code -D ibex.softroce.fault.control=FILE}, or {@code --faults-from-stdin}).
 *
 * <p>The one deviation on RoCE: where apm.c takes ({@code -d}) or exchanges (private data) the alternate port's LID,
 * this port takes or exchanges its IPv4 address — the alternate GID. Private data carries it in exactly 4 bytes
 * (network order), not apm.c's {@code sizeof(int)} read of a 16-bit variable.
 */
@Command(name = "apm", sortOptions = false, separator = " ",
        description = "Automatic path migration (the seeds' apm.c): an RC connection with an alternate path on "
                + "each end, messages back and forth, a manual (-m) or automatic (path cut) migration.")
public final class Apm extends SampleCommand {
    static final int DEFAULT_MSG_LENGTH = 1_000_000;

    @Option(names = "-s", description = "server side") boolean server;
    @Option(names = "-a", paramLabel = "ip", description = "client: the server's address (required)") String address;
    @Option(names = "-b", paramLabel = "ip", description = "server: the address to bind (default any)")
    String bindAddress;
    @Option(names = "-p", paramLabel = "port", defaultValue = "51216", description = "port (default 51216)")
    int port;
    @Option(names = "-c", paramLabel = "msg_count", defaultValue = "100", description = "messages (default 100)")
    int msgCount;
    @Option(names = "-l", paramLabel = "msg_length", defaultValue = "" + DEFAULT_MSG_LENGTH,
            description = "message length (default 1000000)")
    int msgLength;
    @Option(names = "-d", paramLabel = "alt_dgid",
            description = "the peer's alternate address (apm.c: its alternate LID); requires -r")
    String altDgid;
    @Option(names = "-r", paramLabel = "alt_srcport", description = "the local alternate port; requires -d")
    Integer altSrcPort;
    @Option(names = "-m", paramLabel = "num_iterations_then_migrate", defaultValue = "-1",
            description = "client: force a migration after this many iterations (default -1: never)")
    int migrateAfter;
    @Option(names = "-w", paramLabel = "msec_wait_between_sends", defaultValue = "500",
            description = "wait between sends (default 500 ms)")
    int msecDelay;
    @Option(names = "--faults-from-stdin",
            description = "soft-roce: apply fault commands read from stdin (cut A B, heal A B, port DEV N down …)")
    boolean faultsFromStdin;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<InetSocketAddress> listening = new CompletableFuture<>();

    public Apm(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Apm(System.out, System.err)).execute(args));
    }

    /** Completes with the bound address once the server listens (for tests and launchers). */
    public CompletableFuture<InetSocketAddress> listening() {
        return listening;
    }

    @Override
    public Integer call() {
        if (!server && address == null) {
            err.println("apm: a client needs -a <server address>");
            return 22;
        }
        if ((altDgid == null) != (altSrcPort == null)) {
            err.println("apm: -d and -r must be given together");
            return 22;
        }
        if (migrateAfter > msgCount) {
            err.println("apm: -m " + migrateAfter + " exceeds the message count " + msgCount);
            return 22;
        }
        if (msgCount < 1 || msgLength < 1 || msecDelay < 0) {
            err.println("apm: -c and -l must be positive, -w not negative");
            return 22;
        }
        Inet4Address peerAlt = null;
        if (altDgid != null) {
            peerAlt = ipv4(altDgid);
            if (peerAlt == null) {
                err.println("apm: -d " + altDgid + " is not an IPv4 address (the alternate GID on RoCE)");
                return 22;
            }
        }
        InetSocketAddress where = server
                ? (bindAddress == null ? new InetSocketAddress(port) : new InetSocketAddress(bindAddress, port))
                : new InetSocketAddress(address, port);
        if (where.isUnresolved()) {
            err.println("rdma_getaddrinfo: cannot resolve " + (server ? bindAddress : address));
            return 22;
        }
        ConnectionOptions options = ConnectionOptions.DEFAULT.withReceiveWindow(2).withSendQueueDepth(4)
                .withRdmaDepth(2, 2).withRetries(5, 5); // apm.c: responder_resources 2, initiator_depth 2, retries 5
        try (SampleRun run = begin(new SampleRun(fabric.open(msgLength), out, err))) {
            if (faultsFromStdin) {
                FaultInput.start(run, System.in);
            }
            ApmSettings settings = new ApmSettings(msgCount, msgLength, msecDelay, migrateAfter, peerAlt, altSrcPort);
            if (server) {
                Listener.listen(run.loop(), where, ListenOptions.DEFAULT.withChildrenOnListenerLoop(true)
                        .withConnection(options), new ApmServer(run, settings, listening));
            } else {
                ApmNode node = new ApmNode(run, settings, false);
                byte[] mine;
                try {
                    mine = node.connectData(where);
                } catch (RuntimeException e) {
                    err.println(e.getMessage());
                    return 1;
                }
                Connection.connect(run.loop(), where, mine, options, node);
            }
            return run.await(fabric.timeout());
        }
    }

    static Inet4Address ipv4(String text) {
        try {
            return InetAddress.getByName(text) instanceof Inet4Address a ? a : null;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** Reads fault commands from stdin on a daemon thread (soft-roce only). */
    static final class FaultInput {
        private FaultInput() {}

        static void start(SampleRun run, java.io.InputStream in) {
            if (!(run.group().fabric() instanceof dev.ibex.softroce.SoftFabric soft)) {
                run.err().println("apm: --faults-from-stdin needs the soft-roce provider");
                return;
            }
            Thread.ofPlatform().daemon().name("apm-faults").start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        try {
                            String done = soft.faultCommands().apply(line);
                            if (done != null) {
                                run.out().println("fault: " + done);
                            }
                        } catch (IllegalArgumentException e) {
                            run.err().println("fault: " + e.getMessage());
                        }
                    }
                } catch (java.io.IOException e) {
                    // stdin closed
                }
            });
        }
    }
}
