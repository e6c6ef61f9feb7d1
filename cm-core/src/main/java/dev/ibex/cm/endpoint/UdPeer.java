package dev.ibex.cm.endpoint;

import dev.ibex.cm.spi.AddressHandle;
import java.net.InetSocketAddress;

/**
 * Where a {@link Datagram} sends: an address handle with the remote QP number and Q_Key (a resolved UD service, a
 * reply address from a received datagram, or a multicast group). Lives until closed or until its datagram closes.
 */
public final class UdPeer {
    private final Datagram datagram;
    private final AddressHandle ah;
    private final int qpNum;
    private final int qkey;
    private final InetSocketAddress remote;
    private final byte[] privateData;
    private volatile boolean closed;

    UdPeer(Datagram datagram, AddressHandle ah, int qpNum, int qkey, InetSocketAddress remote, byte[] privateData) {
        this.datagram = datagram;
        this.ah = ah;
        this.qpNum = qpNum;
        this.qkey = qkey;
        this.remote = remote;
        this.privateData = privateData == null ? new byte[0] : privateData;
    }

    /** {@return the remote QP number sends go to ({@code 0xFFFFFF} for a multicast group)} */
    public int qpNum() {
        return qpNum;
    }

    /** {@return the Q_Key sends carry; the remote QP drops datagrams with another} */
    public int qkey() {
        return qkey;
    }

    /** {@return the address it was resolved from (or the group), {@code null} for reply addresses} */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /** {@return what the remote service sent with its SIDR answer; a copy} */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@return the datagram endpoint that made this peer and may send to it} */
    public Datagram datagram() {
        return datagram;
    }

    /** {@return whether the peer's address handle was destroyed} */
    public boolean isClosed() {
        return closed;
    }

    AddressHandle ah() {
        return ah;
    }

    /** Destroys the address handle (sends already posted to it must have completed). Any thread. */
    public void close() {
        datagram.loop().run(() -> datagram.forget(this));
    }

    void destroy() {
        if (!closed) {
            closed = true;
            ah.close();
        }
    }
}
