package dev.ibex.cm.spi;

/**
 * {@code struct rdma_ud_param}: how to reach a remote UD QP (or a multicast group, with QPN 0xFFFFFF).
 *
 * @param privateData the peer's private data (never {@code null}; empty when none)
 * @param ahAttr the path to the remote port, for an address handle
 * @param qpNum the remote QP number, or {@link #MULTICAST_QPN}
 * @param qkey the Q_Key to send with
 */
public record UdParam(byte[] privateData, AhAttr ahAttr, int qpNum, int qkey) {
    /** The QPN that addresses a multicast group. */
    public static final int MULTICAST_QPN = 0xFFFFFF;
    /** The default Q_Key of RDMA_PS_UDP ids and their multicast groups. */
    public static final int RDMA_UDP_QKEY = 0x01234567;

    /** Replaces {@code null} private data with an empty array. */
    public UdParam {
        privateData = privateData == null ? new byte[0] : privateData;
    }
}
