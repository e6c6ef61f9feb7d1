package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.ConnParam;
import java.net.InetSocketAddress;

/**
 * A connection request received by a {@link Listener}: what the peer sent, and the means to answer. The answer may
 * come from any thread; the first one counts.
 */
public final class ConnectionRequest {
    private final Connection connection;
    private final Listener listener;

    ConnectionRequest(Connection connection, Listener listener) {
        this.connection = connection;
        this.listener = listener;
    }

    /** {@return the peer's private data (a copy; may be zero-padded beyond what it sent)} */
    public byte[] privateData() {
        return connection.peerPrivateData();
    }

    /** {@return the requester's address and port} */
    public InetSocketAddress peerAddress() {
        return connection.remoteAddress();
    }

    /** {@return the local address and port the request arrived on} */
    public InetSocketAddress localAddress() {
        return connection.localAddress();
    }

    /** {@return the peer's connection parameters (RDMA READ depths, retry counts, QP number)} */
    public ConnParam param() {
        return connection.peerParam();
    }

    /** {@return the listener that received the request} */
    public Listener listener() {
        return listener;
    }

    /** {@return the connection this request becomes (REQUESTED until answered)} */
    public Connection connection() {
        return connection;
    }

    /**
     * Accepts without private data on the loop the listener's policy picks.
     *
     * @param handler the accepted connection's callbacks
     * @return the connection, accepting
     */
    public Connection accept(ConnectionHandler handler) {
        return accept(handler, null);
    }

    /**
     * Accepts with up to 196 bytes of private data; the connection moves to the loop the listener's policy picks
     * (round-robin by default). {@code handler} then gets onEstablished or onError, and the rest.
     *
     * @throws IllegalArgumentException when the private data is too long
     * @param handler the accepted connection's callbacks
     * @param privateData sent with the accept, or {@code null}
     * @return the connection, accepting
     */
    public Connection accept(ConnectionHandler handler, byte[] privateData) {
        return accept(handler, privateData, listener.childLoop());
    }

    /**
     * Accepts and moves the connection to {@code loop} (of the same group).
     *
     * @param handler the accepted connection's callbacks
     * @param privateData sent with the accept (at most 196 bytes), or {@code null}
     * @param loop the loop the connection moves to
     * @return the connection, accepting
     * @throws IllegalArgumentException when the private data is too long
     */
    public Connection accept(ConnectionHandler handler, byte[] privateData, EventLoop loop) {
        connection.accept(handler, privateData, loop);
        return connection;
    }

    /**
     * Rejects with up to 148 bytes of private data (the peer sees REJECTED, reason 28, with the data).
     *
     * @throws IllegalArgumentException when the private data is too long
     * @param privateData what the requester's REJECTED event carries, or {@code null}
     */
    public void reject(byte[] privateData) {
        connection.reject(privateData);
    }
}
