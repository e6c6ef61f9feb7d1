package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.ConnectionRequest;
import dev.ibex.cm.spi.ConnParam;
import java.net.InetSocketAddress;

/** A connection request as a server's {@link RdmaServer#accept accept policy} sees it. */
public final class RdmaRequest {
    private final ConnectionRequest request;

    RdmaRequest(ConnectionRequest request) {
        this.request = request;
    }

    /** What the client sent with its connect (a copy; may be zero-padded beyond what it sent). */
    public byte[] privateData() {
        return request.privateData();
    }

    public InetSocketAddress peerAddress() {
        return request.peerAddress();
    }

    public InetSocketAddress localAddress() {
        return request.localAddress();
    }

    /** The client's connection parameters (RDMA READ depths, retry counts, QP number). */
    public ConnParam param() {
        return request.param();
    }

    @Override
    public String toString() {
        return "RdmaRequest[from " + peerAddress() + "]";
    }
}
