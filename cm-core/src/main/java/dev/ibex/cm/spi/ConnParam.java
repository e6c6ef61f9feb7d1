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

    public ConnParam withPrivateData(byte[] data) {
        return new ConnParam(data, responderResources, initiatorDepth, flowControl, retryCount, rnrRetryCount, srq,
                qpNum);
    }

    public ConnParam withRdmaDepth(int responder, int initiator) {
        return new ConnParam(privateData, responder, initiator, flowControl, retryCount, rnrRetryCount, srq, qpNum);
    }

    public ConnParam withRetries(int retry, int rnrRetry) {
        return new ConnParam(privateData, responderResources, initiatorDepth, flowControl, retry, rnrRetry, srq,
                qpNum);
    }
}
