package dev.ibex.samples.udaddy;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.DatagramRequest;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.spi.Gid;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * udaddy's server on one listening UD endpoint: answers {@code connections} SIDR requests with its QP number,
 * waits for {@code count} datagrams from each client QP (told apart by their source GID and QP number), then
 * replies {@code count} datagrams to each (SEND with immediate = this QP's number, as udaddy sends) and ends once
 * the replies have completed.
 */
final class UdaddyServer implements DatagramHandler {
    /** One client QP: where replies go and what it has sent so far. */
    private static final class Client {
        final Gid gid;
        final int qpn;
        final UdPeer peer;
        int received;
        int toSend;

        Client(Gid gid, int qpn, UdPeer peer) {
            this.gid = gid;
            this.qpn = qpn;
            this.peer = peer;
        }
    }

    private final SampleRun run;
    private final int connections;
    private final int count;
    private final int size;
    private final CompletableFuture<InetSocketAddress> listening;
    private final List<Client> clients = new ArrayList<>();
    private int accepted;
    private int completed;
    private boolean replying;
    private int status;

    UdaddyServer(SampleRun run, int connections, int count, int size,
            CompletableFuture<InetSocketAddress> listening) {
        this.run = run;
        this.connections = connections;
        this.count = count;
        this.size = size;
        this.listening = listening;
    }

    @Override
    public void onBound(Datagram d) {
        if (size > d.maxPayload()) {
            run.out().printf("udaddy: message_size %d is larger than active mtu %d%n", size, d.maxPayload());
            status = 22;
            d.close();
            return;
        }
        listening.complete(d.localAddress());
    }

    @Override
    public void onRequest(Datagram d, DatagramRequest request) {
        if (accepted == connections) {
            run.out().println("udaddy: failing connection request");
            request.reject(null);
            return;
        }
        request.accept(null);
        if (++accepted == connections) {
            if (count == 0) {
                d.close();
            } else {
                run.out().println("receiving data transfers");
            }
        }
    }

    @Override
    public void onMessage(Datagram d, Buffer message) {
        try {
            Client c = clientOf(d, message);
            if (c != null && c.received < count) {
                c.received++;
            }
        } finally {
            message.release();
        }
        if (!replying && clients.size() == connections && clients.stream().allMatch(c -> c.received >= count)) {
            replying = true;
            run.out().println("sending replies");
            for (Client c : clients) {
                c.toSend = count;
            }
            pump(d);
        }
    }

    private Client clientOf(Datagram d, Buffer message) {
        Gid gid = message.sourceGid();
        int qpn = message.sourceQp();
        for (Client c : clients) {
            if (c.qpn == qpn && c.gid.equals(gid)) {
                return c;
            }
        }
        if (clients.size() == connections || gid == null) {
            return null;
        }
        Client c = new Client(gid, qpn, d.peerOf(message));
        clients.add(c);
        return c;
    }

    private void pump(Datagram d) {
        for (Client c : clients) {
            while (c.toSend > 0 && d.writableSlots() > 0) {
                d.sendWithImm(c.peer, d.allocate(), 0, size, d.qpNum(), 0);
                c.toSend--;
            }
        }
    }

    @Override
    public void onWritabilityChanged(Datagram d, boolean writable) {
        if (writable) {
            pump(d);
        }
    }

    @Override
    public void onComplete(Datagram d, long attachment) {
        if (++completed == connections * count) {
            run.out().println("data transfers complete");
            d.close();
        }
    }

    @Override
    public void onFailed(Datagram d, long attachment, RdmaException error) {
        run.out().println("udaddy: send failed: " + error.getMessage());
        status = 1;
        d.close();
    }

    @Override
    public void onError(Datagram d, Throwable error) {
        run.out().println("udaddy: " + error.getMessage());
        listening.completeExceptionally(error);
        status = 1;
    }

    @Override
    public void onClosed(Datagram d) {
        run.out().println("test complete");
        run.out().println("return status " + status);
        run.finish(status);
    }
}
