package dev.ibex.samples.mckey;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.DatagramHandler;
import dev.ibex.cm.endpoint.Membership;
import dev.ibex.samples.cli.CmEventName;
import java.net.InetSocketAddress;

/**
 * One of mckey's nodes: its own UD endpoint joined to the group. A sender posts its datagrams to the group (SEND
 * with immediate = its QP number, as mckey does); a receiver counts what arrives.
 */
final class McNode implements DatagramHandler {
    private final McTest test;
    private final InetSocketAddress group;
    private final boolean sendOnly;
    private final int size;
    private Datagram datagram;
    private Membership membership;
    private int toSend;
    private int sent;
    private int received;
    private boolean closed;

    McNode(McTest test, InetSocketAddress group, boolean sendOnly, int size) {
        this.test = test;
        this.group = group;
        this.sendOnly = sendOnly;
        this.size = size;
    }

    int received() {
        return received;
    }

    int sent() {
        return sent;
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
            datagram.sendWithImm(membership.peer(), datagram.allocate(), 0, size, datagram.qpNum(), 0);
            toSend--;
        }
    }

    /** Leaves the group and closes the endpoint. */
    void close() {
        if (datagram != null) {
            if (membership != null) {
                membership.leave();
            }
            datagram.close();
        }
    }

    @Override
    public void onBound(Datagram d) {
        datagram = d;
        if (size > d.maxPayload()) {
            test.failed(String.format("mckey: message_size %d is larger than active mtu %d", size, d.maxPayload()),
                    22);
            return;
        }
        membership = d.join(group, sendOnly);
    }

    @Override
    public void onJoined(Datagram d, Membership m) {
        test.joined(this);
    }

    @Override
    public void onMembershipError(Datagram d, Membership m, Throwable error) {
        if (error instanceof RdmaConnectException e) {
            test.failed(String.format("mckey: event: %s, error: %d (%s)", CmEventName.of(e), e.status(),
                    e.getMessage()), e.status() != 0 ? Math.abs(e.status()) : 1);
        } else {
            test.failed("mckey: failure joining: " + error.getMessage(), 1);
        }
    }

    @Override
    public void onMessage(Datagram d, Buffer message) {
        message.release();
        received++;
        test.progress();
    }

    @Override
    public void onComplete(Datagram d, long attachment) {
        sent++;
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
            test.failed("mckey: send failed: " + error.getMessage(), 1);
        }
    }

    @Override
    public void onError(Datagram d, Throwable error) {
        test.failed("mckey: " + error.getMessage(), 1);
    }

    @Override
    public void onClosed(Datagram d) {
        closed = true;
        test.closed();
    }
}
