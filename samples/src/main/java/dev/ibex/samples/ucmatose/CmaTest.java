package dev.ibex.samples.ucmatose;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.samples.cli.CmEventName;
import dev.ibex.samples.cli.SampleRun;
import java.util.ArrayList;
import java.util.List;

/**
 * ucmatose's test ({@code struct cmatest}) as a state machine on the run's loop, for both roles. Server: once every
 * connection is established it sends {@code count} messages on each, waits for those sends and for {@code count}
 * replies per connection, then disconnects. Client: waits for {@code count} messages on every connection, sends
 * {@code count} replies on each, and waits for the server to disconnect. Prints the C tool's progress lines.
 */
final class CmaTest {
    private enum Phase { CONNECTING, SENDING, RECEIVING, AWAITING_DISCONNECT, DISCONNECTING, DONE }

    private final SampleRun run;
    private final boolean server;
    private final int connections;
    private final int count;
    private final int size;
    private final List<CmaNode> nodes = new ArrayList<>();
    private Phase phase = Phase.CONNECTING;
    private int connectsLeft;
    private int status;

    CmaTest(SampleRun run, boolean server, int connections, int count, int size) {
        this.run = run;
        this.server = server;
        this.connections = connections;
        this.count = size == 0 ? 0 : count;
        this.size = size;
        this.connectsLeft = connections;
    }

    /** A new node, or {@code null} when all {@code connections} are taken (the C server then rejects). */
    CmaNode newNode() {
        if (nodes.size() == connections) {
            return null;
        }
        CmaNode n = new CmaNode(this, nodes.size(), size);
        nodes.add(n);
        return n;
    }

    void established(CmaNode n) {
        connectsLeft--;
        allConnected();
    }

    void failed(CmaNode n, Throwable error) {
        if (error instanceof RdmaConnectException e) {
            run.out().printf("cmatose: event: %s, error: %d%n", CmEventName.of(e), e.status());
            fail(e.status() != 0 ? Math.abs(e.status()) : 1);
        } else {
            run.out().println("cmatose: connection " + n.id() + " failed: " + error.getMessage());
            fail(1);
        }
        if (!n.isEstablished() && phase == Phase.CONNECTING) {
            connectsLeft--;
            allConnected();
        } else {
            disconnectAll();
        }
    }

    private void fail(int s) {
        if (status == 0) {
            status = s;
        }
    }

    private void allConnected() {
        if (connectsLeft > 0 || phase != Phase.CONNECTING) {
            return;
        }
        if (status != 0 || count == 0) {
            if (server || status != 0) {
                disconnectAll();
            } else {
                phase = Phase.AWAITING_DISCONNECT;
            }
            return;
        }
        if (server) {
            run.out().println("initiating data transfers");
            for (CmaNode n : nodes) {
                if (n.isEstablished()) {
                    n.send(count);
                }
            }
            run.out().println("completing sends");
            phase = Phase.SENDING;
        } else {
            run.out().println("receiving data transfers");
            phase = Phase.RECEIVING;
        }
        progress();
    }

    /** A message arrived or a send completed somewhere. */
    void progress() {
        if (phase == Phase.SENDING && every(true)) {
            run.out().println("receiving data transfers");
            phase = Phase.RECEIVING;
        }
        if (phase != Phase.RECEIVING || !every(false)) {
            return;
        }
        if (server) {
            run.out().println("data transfers complete");
            disconnectAll();
        } else {
            run.out().println("sending replies");
            for (CmaNode n : nodes) {
                if (n.isEstablished()) {
                    n.send(count);
                }
            }
            run.out().println("data transfers complete");
            phase = Phase.AWAITING_DISCONNECT; // the server disconnects once it has the replies
        }
    }

    /** Whether every established node has completed its sends ({@code sends}) or received its messages. */
    private boolean every(boolean sends) {
        for (CmaNode n : nodes) {
            if (n.isEstablished() && (sends ? n.sendsCompleted() : n.received()) < count) {
                return false;
            }
        }
        return true;
    }

    private void disconnectAll() {
        if (phase == Phase.DISCONNECTING || phase == Phase.DONE) {
            return;
        }
        phase = Phase.DISCONNECTING;
        if (server) {
            run.out().println("cmatose: disconnecting");
        }
        for (CmaNode n : nodes) {
            n.disconnect();
        }
        closed(null);
    }

    /** The peer disconnected {@code n}: expected only once the client has sent its replies. */
    void disconnected(CmaNode n) {
        if (!server && phase != Phase.AWAITING_DISCONNECT && phase != Phase.DISCONNECTING) {
            run.out().println("cmatose: connection " + n.id() + " disconnected before the transfers completed");
            fail(1);
            disconnectAll();
        }
    }

    void closed(CmaNode n) {
        if (phase == Phase.DONE || (phase == Phase.CONNECTING && nodes.size() < connections)) {
            return;
        }
        for (CmaNode x : nodes) {
            if (!x.isClosed()) {
                return;
            }
        }
        phase = Phase.DONE;
        if (server) {
            run.out().println("disconnected");
        }
        run.out().println("test complete");
        run.out().println("return status " + status);
        run.finish(status);
    }
}
