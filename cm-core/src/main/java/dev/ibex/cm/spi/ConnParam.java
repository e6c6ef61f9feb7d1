package dev.ibex.cm.spi;

/**
 * {@code struct rdma_conn_param}.
 *
 * @param privateData user private data (limits: 56 bytes on connect for TCP, 180 for UDP; 196 on accept,
 *     136 for UDP; checked by the provider before any native call)
 * @param responderResources incoming RDMA READ/atomic operations the local side accepts at once
 * @param initiatorDepth outstanding RDMA READ/atomic operations the local side issues at once
 * @param flowControl whether hardware flow control is available
 * @param retryCount transport retries (0..7)
 * @param rnrRetryCount RNR retries (0..7; 7 means infinite)
 * @param srq whether the QP uses an SRQ (only meaningful without a QP on the id)
 * @param qpNum the QP number (only meaningful without a QP on the id)
 */
public record ConnParam(byte[] privateData, int responderResources, int initiatorDepth, boolean flowControl,
        int retryCount, int rnrRetryCount, boolean srq, int qpNum) {
    private static final byte[] NONE = new byte[0];

    /** librdmacm's defaults when no parameters are given: retry 7, RNR retry 7. */
    public static final ConnParam DEFAULT = new ConnParam(NONE, 1, 1, false, 7, 7, false, 0);

    /**
     * Checks the ranges; {@code null} private data becomes empty.
     *
     * @throws IllegalArgumentException when a depth exceeds 255, a retry count 7, or the private data 255 bytes
     */
    public ConnParam {
        privateData = privateData == null ? NONE : privateData;
        check("responderResources", responderResources, 255);
        check("initiatorDepth", initiatorDepth, 255);
        check("retryCount", retryCount, 7);
        check("rnrRetryCount", rnrRetryCount, 7);
        if (privateData.length > 255) {
            throw new IllegalArgumentException("private data of " + privateData.length
                    + " bytes exceeds 255 bytes, the most rdma_conn_param can carry");
        }
    }

    private static void check(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " must be within 0.." + max + ", got " + v);
        }
    }

    /**
     * A copy with other private data.
     *
     * @param data the private data (not copied), or {@code null} for none
     * @return the new parameters
     */
    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq,
                qpNum);
    }

    /**
     * A copy with other RDMA READ/atomic depths.
     *
     * @param responder incoming RDMA READ/atomic operations accepted at once, 0 to 255
     * @param initiator outstanding RDMA READ/atomic operations issued at once, 0 to 255
     * @return the new parameters
     * @throws IllegalArgumentException when a depth is out of range
     */
    public ConnParam withRdmaDepth(int responder, int initiator) {
        return new ConnParam(privateData, responder, initiator, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    /**
     * A copy with other retry counts.
     *
     * @param retry transport retries, 0 to 7
     * @param rnrRetry RNR retries, 0 to 7 (7: infinite)
     * @return the new parameters
     * @throws IllegalArgumentException when a count is out of range
     */
    public ConnParam withRetries(int retry, int rnrRetry) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retry, rnrRetry, srq,
                qpNum);
    }
}
