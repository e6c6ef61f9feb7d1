package dev.ibex.samples.apm;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionHandler;
import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.endpoint.Operation;
import dev.ibex.cm.endpoint.PathEvent;
import dev.ibex.cm.endpoint.RdmaPath;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.samples.cli.SampleRun;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One end of apm.c's exchange (loop thread): after ESTABLISHED it loads its alternate path ({@code load_alt_path}:
 * the primary's attributes with the alternate port and the peer's alternate address, REARM), then runs
 * {@code msg_count} iterations — server: receive, wait {@code -w}, send; client: wait, send, receive, and after
 * iteration {@code -m} a forced migration. apm.c's async-event thread becomes the path and device callbacks: "QP path
 * migrated", "QP path migration error", "Async Event %d".
 */
final class ApmNode implements ConnectionHandler {
    private final SampleRun run;
    private final ApmSettings settings;
    private final boolean server;
    private AltPort mine;
    private Inet4Address peerAlternate;
    private int iteration;
    private int pendingReceives;
    private boolean waitingForMessage;
    private boolean done;

    ApmNode(SampleRun run, ApmSettings settings, boolean server) {
        this.run = run;
        this.settings = settings;
        this.server = server;
        this.peerAlternate = settings.peerAlternate();
    }

    /** Client: the private data of the connect (its alternate address), chosen on the device it will use. */
    byte[] connectData(InetSocketAddress serverAddress) {
        DeviceContext device = run.group().fabric().devices().getFirst();
        mine = AltPort.find(device, 1, device.queryGid(1, 0).toInetAddress(), settings.altSrcPort());
        if (mine == null) {
            throw new IllegalStateException("no alternate port or address on " + device.device().name());
        }
        return settings.peerAlternate() == null ? mine.privateData() : null;
    }

    /** Server: reads the client's alternate, finds its own on the request's device; the accept's private data. */
    byte[] acceptData(ConnectionRequest request) {
        if (peerAlternate == null) {
            peerAlternate = AltPort.fromPrivateData(request.privateData());
            if (peerAlternate == null) {
                throw new IllegalStateException("apm: the connect request carries no alternate address (use -d/-r)");
            }
        }
        DeviceContext device = request.connection().device();
        InetAddress local = request.localAddress().getAddress();
        int port = 1;
        for (int p = 1; p <= device.queryDevice().physPortCount(); p++) {
            if (device.gidIndexOf(p, dev.ibex.cm.spi.Gid.of(local)) >= 0) {
                port = p;
            }
        }
        mine = AltPort.find(device, port, local, settings.altSrcPort());
        if (mine == null) {
            throw new IllegalStateException("no alternate port or address on " + device.device().name());
        }
        return mine.privateData();
    }

    @Override
    public void onEstablished(Connection c) {
        if (peerAlternate == null) {
            peerAlternate = AltPort.fromPrivateData(c.peerPrivateData());
        }
        if (peerAlternate == null) {
            fail(c, "apm: the peer's accept carries no alternate address (use -d/-r)");
            return;
        }
        RdmaPath primary = c.primaryPath();
        run.out().printf("loading alt path - local port: %d, dgid: %s%n", mine.port(),
                peerAlternate.getHostAddress());
        if (primary != null) {
            run.out().printf("primary path: %s%n", primary);
        }
        try {
            c.alternatePath(new InetSocketAddress(mine.address(), 0), new InetSocketAddress(peerAlternate, 0));
        } catch (RdmaException e) {
            fail(c, e.getMessage());
            return;
        }
        if (server) {
            waitingForMessage = true;
        } else {
            scheduleSend(c);
        }
        drainReceived(c);
    }

    private void scheduleSend(Connection c) {
        if (settings.msecDelay() == 0) {
            send(c);
        } else {
            c.loop().schedule(() -> send(c), settings.msecDelay(), TimeUnit.MILLISECONDS);
        }
    }

    private void send(Connection c) {
        if (done || c.state() != dev.ibex.cm.endpoint.ConnectionState.ESTABLISHED) {
            return;
        }
        Buffer b = c.allocate();
        MemorySegment s = b.segment();
        s.asSlice(0, settings.msgLength()).fill((byte) 0x12);
        c.send(b, settings.msgLength(), iteration);
        if (server) {
            iteration++;
            if (iteration == settings.msgCount()) {
                finishExchange(c);
            } else {
                waitingForMessage = true;
                drainReceived(c);
            }
        } else {
            waitingForMessage = true;
            drainReceived(c);
        }
    }

    @Override
    public void onMessage(Connection c, Buffer message) {
        message.release();
        pendingReceives++;
        drainReceived(c);
    }

    /** Takes one received message when the exchange waits for one. */
    private void drainReceived(Connection c) {
        if (!waitingForMessage || pendingReceives == 0 || done) {
            return;
        }
        pendingReceives--;
        waitingForMessage = false;
        if (server) {
            scheduleSend(c);
            return;
        }
        if (iteration == settings.migrateAfter()) {
            c.migrate(); // apm.c: path_mig_state = IBV_MIG_MIGRATED
        }
        iteration++;
        if (iteration == settings.msgCount()) {
            finishExchange(c);
        } else {
            scheduleSend(c);
        }
    }

    private void finishExchange(Connection c) {
        done = true;
        run.out().printf("%d messages of %d bytes exchanged; path now %s%n", settings.msgCount(),
                settings.msgLength(), c.primaryPath());
        if (!server) {
            c.close(); // rdma_disconnect
        }
    }

    @Override
    public void onFailed(Connection c, Operation op, long attachment, RdmaException error) {
        if (!done) {
            fail(c, "send " + attachment + " failed: " + error.getMessage());
        }
    }

    @Override
    public void onPathEvent(Connection c, PathEvent e) {
        switch (e.type()) {
            case MIGRATED -> run.out().println("QP path migrated" + (e.primary() == null ? "" : " to " + e.primary()));
            case MIGRATION_ERROR -> run.out().println("QP path migration error: " + e.cause().getMessage());
            case ARMED -> run.out().println("QP path armed");
            case ALTERNATE_FAILED -> fail(c, "loading the alternate path failed: " + e.cause().getMessage());
            case ALTERNATE_LOADED -> { }
        }
    }

    @Override
    public void onDeviceEvent(Connection c, AsyncEvent event) {
        run.out().printf("Async Event %d%n", event.type().code());
    }

    @Override
    public void onDisconnected(Connection c) {
        if (!done) {
            run.err().println("apm: the peer disconnected after " + iteration + " iterations");
        }
    }

    @Override
    public void onError(Connection c, Throwable error) {
        if (!done) {
            run.err().println("apm: " + error.getMessage());
            run.finish(1);
        }
    }

    @Override
    public void onClosed(Connection c) {
        run.finish(done ? 0 : 1);
    }

    private void fail(Connection c, String message) {
        run.err().println(message);
        done = true;
        c.close();
        run.finish(1);
    }
}
