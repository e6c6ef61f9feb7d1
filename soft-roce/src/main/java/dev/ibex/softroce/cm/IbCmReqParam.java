package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.PathRecord;
import dev.ibex.softroce.mad.Octets;
import java.net.InetAddress;
import java.util.Objects;

/**
 * What {@code ib_send_cm_req} needs ({@code struct ib_cm_req_param}, RC only, no alternate path).
 *
 * @param path the primary path; its packet lifetime gives the local ACK timeout and the response timers
 * @param startingPsn the PSN the passive side starts sending with (the active side's receive PSN)
 * @param privateData at most 92 bytes (the RDMA CM's cma_hdr plus user data)
 */
public record IbCmReqParam(CmPort port, InetAddress destination, long serviceId, PathRecord path, int qpn,
        int startingPsn, int responderResources, int initiatorDepth, boolean flowControl, int retryCount,
        int rnrRetryCount, boolean srq, Octets privateData) {
    public IbCmReqParam {
        Objects.requireNonNull(port, "port");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(privateData, "privateData");
    }
}
