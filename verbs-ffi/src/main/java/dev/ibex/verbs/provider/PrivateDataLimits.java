package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.PortSpace;

/**
 * The private-data limits of the IB CM messages the RDMA CM sends (REQ less its 36-byte CM header, REP, REJ,
 * SIDR_REQ less the header, SIDR_REP), checked before any native call: librdmacm would pass longer data to the
 * kernel, which truncates or fails with a bare EINVAL.
 */
final class PrivateDataLimits {
    private PrivateDataLimits() {
    }

    static boolean isDatagram(PortSpace ps) {
        return ps == PortSpace.UDP || ps == PortSpace.IPOIB;
    }

    static void checkConnect(PortSpace ps, int length) {
        int max = isDatagram(ps) ? CmId.MAX_CONNECT_PRIVATE_DATA_UDP : CmId.MAX_CONNECT_PRIVATE_DATA_TCP;
        check(length, max, "rdma_connect", ps);
    }

    static void checkAccept(PortSpace ps, int length) {
        int max = isDatagram(ps) ? CmId.MAX_ACCEPT_PRIVATE_DATA_UDP : CmId.MAX_ACCEPT_PRIVATE_DATA;
        check(length, max, "rdma_accept", ps);
    }

    static void checkReject(PortSpace ps, int length) {
        // a UD id rejects with a SIDR_REP (status 2), which carries at most 136 bytes
        int max = isDatagram(ps) ? CmId.MAX_ACCEPT_PRIVATE_DATA_UDP : CmId.MAX_REJECT_PRIVATE_DATA;
        check(length, max, "rdma_reject", ps);
    }

    private static void check(int length, int max, String verb, PortSpace ps) {
        if (length > max) {
            throw new IllegalArgumentException("private data of " + length + " bytes exceeds the " + max
                    + "-byte limit of " + verb + " on an RDMA_PS_" + ps + " id");
        }
    }
}
