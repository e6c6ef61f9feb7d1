package dev.ibex.samples.udaddy;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.samples.cli.CmEventName;
import java.net.InetSocketAddress;

/**
 * One of udaddy's client nodes: its own UD endpoint (QP), which resolves the server with SIDR, sends its datagrams
 * (immediate data = its QP number, which the C server uses as the reply address) and counts the replies.
 */
final class UdaddyNode implements DatagramHandler {
    private final UdaddyClient test;
    private final InetSocketAddress server;
    private final int size;
    private Datagram datagram;
    private UdPeer peer;
    private int toSend;
    private int received;
    private boolean closed;

    UdaddyNode(UdaddyClient test, InetSocketAddress server, int size) {
        this.test = test;
        this.server = server;
        this.size = size;
    }

    int received() {
        return received;
    }

    boolean isResolved() {
        return peer != null;
    }

    boolean isClosed() {
        return closed;
    }

    void send(int count) {
        toSend = count;
        pump();
    }

    private void pump() {
        while (toSend > 0 && datagram.writableSlots() > 0) {
            datagram.sendWithImm(peer, datagram.allocate(), 0, size, datagram.qpNum(), 0);
            toSend--;
        }
    }

    void close() {
        if (datagram != null) {
            datagram.close();
        }
    }

    @Override
    public void onBound(Datagram d) {
        datagram = d;
        if (size > d.maxPayload()) {
            test.failed(String.format("udaddy: message_size %d is larger than active mtu %d", size, d.maxPayload()),
                    22);
            return;
        }
        d.resolve(server, null);
    }

    @Override
    public void onResolved(Datagram d, UdPeer p) {
        peer = p;
        test.resolved();
    }

    @Override
    public void onResolveFailed(Datagram d, InetSocketAddress remote, Throwable error) {
        if (error instanceof RdmaConnectException e) {
            test.failed(String.format("udaddy: event: %s, error: %d (%s)", CmEventName.of(e), e.status(),
                    e.getMessage()), e.status() != 0 ? Math.abs(e.status()) : 1);
        } else {
            test.failed("udaddy: " + error.getMessage(), 1);
        }
    }

    @Override
    public void onMessage(Datagram d, Buffer message) {
        message.release();
        received++;
        test.progress();
    }

    @Override
    public void onWritabilityChanged(Datagram d, boolean writable) {
        if (writable) {
            pump();
        }
    }

    @Override
    public void onFailed(Datagram d, long attachment, RdmaException error) {
        if (!closed) {
            test.failed("udaddy: send failed: " + error.getMessage(), 1);
        }
    }

    @Override
    public void onError(Datagram d, Throwable error) {
        test.failed("udaddy: " + error.getMessage(), 1);
    }

    @Override
    public void onClosed(Datagram d) {
        closed = true;
        test.closed();
    }
}
