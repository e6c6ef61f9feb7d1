package dev.ibex.softroce.mad;

/**
 * How many bytes of private data an RDMA CM user may pass ({@code rdma_connect.3}, {@code rdma_accept.3},
 * {@code rdma_reject.3}): the CM message's field minus the 36-byte {@link CmaHeader} where the RDMA CM
 * adds one (REQ and SIDR_REQ only).
 *
 * <table>
 * <caption>limits</caption>
 * <tr><th></th><th>RC (RDMA_PS_TCP, RDMA_PS_IB)</th><th>UD (RDMA_PS_UDP, RDMA_PS_IPOIB)</th></tr>
 * <tr><td>connect</td><td>56 (REQ 92 − 36)</td><td>180 (SIDR_REQ 216 − 36)</td></tr>
 * <tr><td>accept</td><td>196 (REP)</td><td>136 (SIDR_REP)</td></tr>
 * <tr><td>reject</td><td>148 (REJ)</td><td>136 (SIDR_REP with status REJECT)</td></tr>
 * </table>
 */
public final class PrivateDataLimits {
    public static final int CONNECT_RC = CmReq.PRIVATE_DATA_SIZE - CmaHeader.SIZE;
    public static final int CONNECT_UD = CmSidrReq.PRIVATE_DATA_SIZE - CmaHeader.SIZE;
    public static final int ACCEPT_RC = CmRep.PRIVATE_DATA_SIZE;
    public static final int ACCEPT_UD = CmSidrRep.PRIVATE_DATA_SIZE;
    public static final int REJECT_RC = CmRej.PRIVATE_DATA_SIZE;
    public static final int REJECT_UD = CmSidrRep.PRIVATE_DATA_SIZE;

    private PrivateDataLimits() {
    }

    /** Limit of {@code rdma_connect} in {@code portSpace}. */
    public static int connect(PortSpace portSpace) {
        return portSpace.isDatagram() ? CONNECT_UD : CONNECT_RC;
    }

    /** Limit of {@code rdma_accept} in {@code portSpace}. */
    public static int accept(PortSpace portSpace) {
        return portSpace.isDatagram() ? ACCEPT_UD : ACCEPT_RC;
    }

    /** Limit of {@code rdma_reject} in {@code portSpace}. */
    public static int reject(PortSpace portSpace) {
        return portSpace.isDatagram() ? REJECT_UD : REJECT_RC;
    }

    /**
     * Throws {@link IllegalArgumentException} unless {@code length} bytes fit {@code rdma_connect}, e.g.
     * "private data of 57 bytes exceeds the 56-byte limit of rdma_connect on RDMA_PS_TCP".
     */
    public static void checkConnect(PortSpace portSpace, int length) {
        check(length, connect(portSpace), "rdma_connect", portSpace);
    }

    /** As {@link #checkConnect} for {@code rdma_accept}. */
    public static void checkAccept(PortSpace portSpace, int length) {
        check(length, accept(portSpace), "rdma_accept", portSpace);
    }

    /** As {@link #checkConnect} for {@code rdma_reject}. */
    public static void checkReject(PortSpace portSpace, int length) {
        check(length, reject(portSpace), "rdma_reject", portSpace);
    }

    private static void check(int length, int limit, String verb, PortSpace portSpace) {
        if (length < 0) {
            throw new IllegalArgumentException("private data length " + length + " is negative");
        }
        if (length > limit) {
            throw new IllegalArgumentException("private data of " + length + " bytes exceeds the " + limit
                    + "-byte limit of " + verb + " on " + portSpace.cName());
        }
    }
}
