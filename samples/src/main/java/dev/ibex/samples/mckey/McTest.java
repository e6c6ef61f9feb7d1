package dev.ibex.samples.mckey;

import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * mckey's test: {@code connections} UD endpoints join the group; then a sender waits the pause (mckey sleeps 3 s
 * "to give the SM a chance") and sends {@code count} datagrams from each, a receiver waits for {@code count}
 * datagrams on each. Prints the C tool's progress lines.
 */
final class McTest {
    private final SampleRun run;
    private final InetSocketAddress group;
    private final boolean sender;
    private final int count;
    private final long pauseMillis;
    private final CompletableFuture<Void> receiving;
    private final List<McNode> nodes = new ArrayList<>();
    private int joinsLeft;
    private boolean transferring;
    private boolean closing;
    private int status;

    McTest(SampleRun run, InetSocketAddress bind, InetSocketAddress group, boolean sender, boolean sendOnly,
            int connections, int count, int size, long pauseMillis, CompletableFuture<Void> receiving) {
        this.run = run;
        this.group = group;
        this.sender = sender;
        this.count = count;
        this.pauseMillis = pauseMillis;
        this.receiving = receiving;
        this.joinsLeft = connections;
        DatagramOptions options = DatagramOptions.DEFAULT.withReceiveWindow(Math.max(1, count));
        for (int i = 0; i < connections; i++) {
            McNode n = new McNode(this, group, sendOnly, size);
            nodes.add(n);
            Datagram.bind(run.loop(), bind, options, n);
        }
    }

    void joined(McNode n) {
        run.out().printf("mckey: joined dgid: ::ffff:%s mlid 0x0 sl 0%n", group.getAddress().getHostAddress());
        if (--joinsLeft > 0) {
            return;
        }
        if (count == 0) {
            closeAll();
        } else if (sender) {
            run.loop().schedule(this::startSending, pauseMillis, TimeUnit.MILLISECONDS);
        } else {
            run.out().println("receiving data transfers");
            transferring = true;
            receiving.complete(null);
            progress();
        }
    }

    private void startSending() {
        if (closing) {
            return;
        }
        run.out().println("initiating data transfers");
        transferring = true;
        for (McNode n : nodes) {
            n.send(count);
        }
    }

    void progress() {
        if (transferring && !closing
                && nodes.stream().allMatch(n -> (sender ? n.sent() : n.received()) >= count)) {
            run.out().println("data transfers complete");
            closeAll();
        }
    }

    void failed(String message, int s) {
        run.out().println(message);
        if (status == 0) {
            status = s;
        }
        receiving.completeExceptionally(new IllegalStateException(message));
        closeAll();
    }

    private void closeAll() {
        closing = true;
        for (McNode n : nodes) {
            n.close();
        }
    }

    void closed() {
        if (nodes.stream().allMatch(McNode::isClosed)) {
            run.out().println("test complete");
            run.out().println("return status " + status);
            run.finish(status);
        }
    }
}
