package dev.ibex.samples.mckey;

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
 * A port of rdma-core's {@code mckey} (UD multicast over the RDMA CM) on the callback API: {@code -c} endpoints
 * join the group {@code -m}; with {@code -s} each sends {@code -C} datagrams of {@code -S} bytes to it, otherwise
 * each waits for {@code -C} datagrams. {@code -o} joins as a send-only full member. Unlike the C tool it needs
 * {@code -b}: a UD endpoint lives on the device of its address.
 */
@Command(name = "mckey", sortOptions = false, separator = " ",
        description = "RDMA CM multicast test (rdma-core's mckey): join a group, send to it or receive from it.")
public final class Mckey extends SampleCommand {
    @Option(names = "-m", paramLabel = "multicast_address", required = true) String groupAddress;
    @Option(names = "-s", description = "sender (default: receiver)") boolean sender;
    @Option(names = "-b", paramLabel = "bind_address", required = true,
            description = "address of the local RDMA device (required)")
    String bindAddress;
    @Option(names = "-c", paramLabel = "connections", defaultValue = "1") int connections;
    @Option(names = "-C", paramLabel = "message_count", defaultValue = "10") int count;
    @Option(names = "-S", paramLabel = "message_size", defaultValue = "100") int size;
    @Option(names = "-o", description = "join as a send-only full member") boolean sendOnly;
    @Option(names = "--pause-ms", paramLabel = "ms", defaultValue = "3000",
            description = "how long a sender waits after joining before it sends (mckey sleeps 3 s)")
    long pauseMillis;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<Void> receiving = new CompletableFuture<>();

    public Mckey(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Mckey(System.out, System.err)).execute(args));
    }

    /** Completes once a receiver has joined with every endpoint and waits for data. */
    public CompletableFuture<Void> receiving() {
        return receiving;
    }


    @Override
    public Integer call() {
        if (connections <= 0 || count < 0 || size < 0 || pauseMillis < 0) {
            err.println("mckey: connections must be positive; count, size and pause not negative");
            return 22;
        }
        InetSocketAddress group = new InetSocketAddress(groupAddress, 0);
        InetSocketAddress bind = new InetSocketAddress(bindAddress, 0);
        if (group.isUnresolved() || bind.isUnresolved()) {
            out.println("getaddrinfo failed - invalid hostname or IP address");
            return 22;
        }
        if (!group.getAddress().isMulticastAddress()) {
            out.println("mckey: " + groupAddress + " is not a multicast address");
            return 22;
        }
        try (SampleRun run = begin(new SampleRun(fabric.openForDatagrams(size), out, err))) {
            out.println("mckey: starting " + (sender ? "client" : "server"));
            out.println("mckey: joining");
            new McTest(run, bind, group, sender, sendOnly, connections, size == 0 ? 0 : count, size, pauseMillis,
                    receiving);
            return run.await(fabric.timeout());
        }
    }
}
