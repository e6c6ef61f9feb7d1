package dev.ibex.samples.udaddy;

import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramOptions;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * udaddy's client: {@code connections} UD endpoints resolve the server; once all have, each sends {@code count}
 * datagrams and waits for as many replies.
 */
final class UdaddyClient {
    private final SampleRun run;
    private final int count;
    private final List<UdaddyNode> nodes = new ArrayList<>();
    private int resolvesLeft;
    private boolean receiving;
    private boolean closing;
    private int status;

    UdaddyClient(SampleRun run, InetSocketAddress bind, InetSocketAddress server, int connections, int count,
            int size) {
        this.run = run;
        this.count = count;
        this.resolvesLeft = connections;
        DatagramOptions options = DatagramOptions.DEFAULT.withReceiveWindow(Math.max(1, count));
        for (int i = 0; i < connections; i++) {
            UdaddyNode n = new UdaddyNode(this, server, size);
            nodes.add(n);
            Datagram.bind(run.loop(), bind, options, n);
        }
    }

    void resolved() {
        if (--resolvesLeft > 0) {
            return;
        }
        if (count == 0) {
            closeAll();
            return;
        }
        run.out().println("initiating data transfers");
        for (UdaddyNode n : nodes) {
            n.send(count);
        }
        run.out().println("receiving data transfers");
        receiving = true;
        progress();
    }

    void progress() {
        if (receiving && !closing && nodes.stream().allMatch(n -> n.received() >= count)) {
            run.out().println("data transfers complete");
            closeAll();
        }
    }

    void failed(String message, int s) {
        run.out().println(message);
        if (status == 0) {
            status = s;
        }
        closeAll();
    }

    private void closeAll() {
        closing = true;
        for (UdaddyNode n : nodes) {
            n.close();
        }
    }

    void closed() {
        if (nodes.stream().allMatch(UdaddyNode::isClosed)) {
            run.out().println("test complete");
            run.out().println("return status " + status);
            run.finish(status);
        }
    }
}
