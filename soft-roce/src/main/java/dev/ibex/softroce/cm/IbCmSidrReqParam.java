package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.Octets;
import java.net.InetAddress;
import java.util.Objects;

/** What {@code ib_send_cm_sidr_req} needs; the timeout and retries come from {@link CmTimings}. */
public record IbCmSidrReqParam(CmPort port, InetAddress destination, long serviceId, int pkey,
        Octets privateData) {
    public IbCmSidrReqParam {
        Objects.requireNonNull(port, "port");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(privateData, "privateData");
    }
}
