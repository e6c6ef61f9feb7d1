package dev.ibex.cm.reactive;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.UdParam;
import java.util.Arrays;

/**
 * One RDMA CM event ({@code struct rdma_cm_event}) as an immutable value: everything the event carries was copied
 * before the event was acknowledged, so holding it holds nothing of the CM's (destroying the id never waits for it).
 * Private data is kept once, here (copied in; {@link #privateData()} returns a fresh copy).
 *
 * @param type the event ({@code RDMA_CM_EVENT_*}); every type of {@link CmEventType} can appear
 * @param id the id the event is for; for {@code CONNECT_REQUEST} the new id of the request (the application must
 *     accept, reject or close it)
 * @param listenId the listening id of a {@code CONNECT_REQUEST}, else {@code null}
 * @param status 0, a negative errno, the IB CM reject reason of {@code REJECTED} (8: nobody listens, 28: the peer
 *     rejected) or a SIDR status
 * @param conn the peer's connection parameters of connected events ({@code CONNECT_REQUEST}, {@code ESTABLISHED},
 *     {@code REJECTED}…), else {@code null}
 * @param ud the remote UD QP (or multicast group) of UD events ({@code ESTABLISHED} on UDP ids,
 *     {@code MULTICAST_JOIN}), else {@code null}
 * @param context the join context of multicast events, else {@code null}
 * @param privateData the peer's private data (connect, accept, reject or SIDR data; empty when none)
 */
public record RdmaCmEvent(CmEventType type, CmId id, CmId listenId, int status, Conn conn, Ud ud, Object context,
        byte[] privateData) {

    /**
     * {@code struct rdma_conn_param} as the peer sent it (its private data is the event's).
     *
     * @param responderResources RDMA READ and atomic operations the peer accepts in flight (its {@code
     *     responder_resources})
     * @param initiatorDepth     RDMA READ and atomic operations the peer issues in flight (its {@code initiator_depth})
     * @param flowControl        whether the peer's hardware does end-to-end flow control
     * @param retryCount         transport retries on a missing ACK, 0 to 7
     * @param rnrRetryCount      retries on receiver-not-ready, 0 to 7 (7: for ever)
     * @param srq                whether the peer's QP receives from a shared receive queue
     * @param qpNum              the peer's QP number (24 bits)
     */
    public record Conn(int responderResources, int initiatorDepth, boolean flowControl, int retryCount,
            int rnrRetryCount, boolean srq, int qpNum) {}

    /**
     * {@code struct rdma_ud_param} (its private data is the event's).
     *
     * @param ahAttr the address vector to reach the remote QP (or the group) with
     * @param qpNum  the remote UD QP number (0xFFFFFF for a multicast group)
     * @param qkey   the Q_Key datagrams to it must carry
     */
    public record Ud(AhAttr ahAttr, int qpNum, int qkey) {}

    /** Copies {@code privateData} ({@code null} becomes empty), so the caller's array may change afterwards. */
    public RdmaCmEvent {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** Copies an SPI event (already acknowledged by the provider). */
    static RdmaCmEvent of(CmEvent e) {
        ConnParam c = e.conn();
        UdParam u = e.ud();
        return new RdmaCmEvent(e.type(), e.id(), e.listenId(), e.status(),
                c == null ? null : new Conn(c.responderResources(), c.initiatorDepth(), c.flowControl(),
                        c.retryCount(), c.rnrRetryCount(), c.srq(), c.qpNum()),
                u == null ? null : new Ud(u.ahAttr(), u.qpNum(), u.qkey()), e.context(), e.privateData());
    }

    /**
     * The peer's private data (a copy; empty when none; may be longer than what was sent, zero-padded).
     *
     * @return a copy of the private data
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The private data's length without copying it.
     *
     * @return the private data's length in bytes
     */
    public int privateDataLength() {
        return privateData.length;
    }

    /**
     * Whether the event is {@code id}'s: its own, or a connection request to it (the listener).
     *
     * @param cmId the id to test
     * @return {@code true} when {@link #id()} or {@link #listenId()} is {@code cmId}
     */
    public boolean concerns(CmId cmId) {
        return id == cmId || listenId == cmId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RdmaCmEvent e && type == e.type && id == e.id && listenId == e.listenId
                && status == e.status && java.util.Objects.equals(conn, e.conn) && java.util.Objects.equals(ud, e.ud)
                && java.util.Objects.equals(context, e.context) && Arrays.equals(privateData, e.privateData);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(type, System.identityHashCode(id), status, Arrays.hashCode(privateData));
    }

    @Override
    public String toString() {
        return "RdmaCmEvent[" + type + (status != 0 ? " status=" + status : "")
                + (privateData.length > 0 ? " private_data=" + privateData.length + "B" : "")
                + (conn != null ? " " + conn : "") + (ud != null ? " " + ud : "") + "]";
    }
}
