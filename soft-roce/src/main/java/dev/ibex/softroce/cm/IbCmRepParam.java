package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.Octets;
import java.util.Objects;

/**
 * What {@code ib_send_cm_rep} needs ({@code struct ib_cm_rep_param}).
 *
 * @param startingPsn the PSN the active side starts sending with (the passive side's receive PSN)
 * @param privateData at most 196 bytes
 */
public record IbCmRepParam(int qpn, int startingPsn, int responderResources, int initiatorDepth,
        boolean flowControl, int rnrRetryCount, boolean srq, Octets privateData) {
    public IbCmRepParam {
        Objects.requireNonNull(privateData, "privateData");
    }
}
