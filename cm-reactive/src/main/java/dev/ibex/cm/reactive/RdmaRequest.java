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

    /**
     * What the client sent with its connect (a copy; may be zero-padded beyond what it sent).
     *
     * @return the private data of the client's connect request
     */
    public byte[] privateData() {
        return request.privateData();
    }

    /**
     * The client's address: its device's IP address and its RDMA CM port.
     *
     * @return the client's address
     */
    public InetSocketAddress peerAddress() {
        return request.peerAddress();
    }

    /**
     * The address the request came in on: the local device's IP address and the listener's port.
     *
     * @return the local address
     */
    public InetSocketAddress localAddress() {
        return request.localAddress();
    }

    /**
     * The client's connection parameters (RDMA READ depths, retry counts, QP number).
     *
     * @return the client's parameters
     */
    public ConnParam param() {
        return request.param();
    }

    @Override
    public String toString() {
        return "RdmaRequest[from " + peerAddress() + "]";
    }
}
