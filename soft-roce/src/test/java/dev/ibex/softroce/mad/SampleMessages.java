package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.Gid;
import dev.ibex.softroce.wire.Ipv4;
import java.nio.charset.StandardCharsets;

/** CM messages as the kernel's RDMA CM would send them on RoCE between 127.0.0.2 and 127.0.0.3 (test fixture). */
public final class SampleMessages {
    public static final int ACTIVE_IP = 0x7F00_0002;
    public static final int PASSIVE_IP = 0x7F00_0003;
    public static final int ACTIVE_PORT = 0xBB27;
    public static final int TCP_SERVICE_PORT = 7471;
    public static final int UDP_SERVICE_PORT = 7472;
    public static final long ACTIVE_GUID = 0x0002_C903_00A1_B2C3L;
    public static final long PASSIVE_GUID = 0x0002_C903_00D4_E5F6L;
    public static final int ACTIVE_COMM_ID = 0x1122_3344;
    public static final int PASSIVE_COMM_ID = 0x5566_7788;
    public static final int ACTIVE_QPN = 0x000123;
    public static final int PASSIVE_QPN = 0x000456;
    public static final Octets USER_DATA = ascii("PRIVDATA");

    private SampleMessages() {
    }

    public static Octets ascii(String s) {
        return Octets.of(s.getBytes(StandardCharsets.US_ASCII));
    }

    public static CmaHeader cmaHeader() {
        return CmaHeader.of(ACTIVE_PORT, Ipv4.toInetAddress(ACTIVE_IP), Ipv4.toInetAddress(PASSIVE_IP));
    }

    /** The primary path of a RoCE REQ: permissive LIDs, IPv4-mapped GIDs, hop limit 64, ACK timeout 17. */
    public static CmPath rocePath() {
        return new CmPath(0xFFFF, 0xFFFF, Gid.ofIpv4(ACTIVE_IP), Gid.ofIpv4(PASSIVE_IP), 0, 2, 0, 64, 0, false, 17);
    }

    public static CmReq req(Octets privateData) {
        return new CmReq(ACTIVE_COMM_ID, 0, ServiceId.of(PortSpace.TCP, TCP_SERVICE_PORT), ACTIVE_GUID, 0,
                ACTIVE_QPN, 4, 0, 4, 0, 20, 0, true, 0x00ABCD, 20, 7, 0xFFFF, 5, false, 7, 15, false, 0, rocePath(),
                CmPath.ABSENT, false, privateData);
    }

    public static CmReq req() {
        return req(cmaHeader().withUserData(USER_DATA));
    }

    public static CmMra mra() {
        return new CmMra(PASSIVE_COMM_ID, ACTIVE_COMM_ID, CmMessageKind.REQ, 24, Octets.EMPTY);
    }

    public static CmRep rep() {
        return new CmRep(PASSIVE_COMM_ID, ACTIVE_COMM_ID, 0, PASSIVE_QPN, 0, 0x00BEEF, 0, 4, 4, 15, 0, true, 7,
                false, PASSIVE_GUID, ascii("ACCEPTED"));
    }

    public static CmRtu rtu() {
        return new CmRtu(ACTIVE_COMM_ID, PASSIVE_COMM_ID, Octets.EMPTY);
    }

    public static CmRej rej() {
        return new CmRej(PASSIVE_COMM_ID, ACTIVE_COMM_ID, CmMessageKind.REQ, CmRejectReason.CONSUMER_DEFINED,
                Octets.EMPTY, ascii("REJECTED"));
    }

    public static CmRej rejNoListener() {
        return new CmRej(0, ACTIVE_COMM_ID, CmMessageKind.REQ, CmRejectReason.INVALID_SERVICE_ID, Octets.EMPTY,
                Octets.EMPTY);
    }

    public static CmDreq dreq() {
        return new CmDreq(ACTIVE_COMM_ID, PASSIVE_COMM_ID, PASSIVE_QPN, Octets.EMPTY);
    }

    public static CmDrep drep() {
        return new CmDrep(PASSIVE_COMM_ID, ACTIVE_COMM_ID, Octets.EMPTY);
    }

    public static CmSidrReq sidrReq() {
        return new CmSidrReq(0x0000_0777, 0xFFFF, ServiceId.of(PortSpace.UDP, UDP_SERVICE_PORT),
                cmaHeader().withUserData(USER_DATA));
    }

    public static CmSidrRep sidrRep() {
        return new CmSidrRep(0x0000_0777, SidrStatus.SUCCESS, 0, 0x000789, ServiceId.of(PortSpace.UDP,
                UDP_SERVICE_PORT), 0x0123_4567, Octets.EMPTY, ascii("UDREPLY"));
    }

    public static CmLap lap() {
        CmPath alt = new CmPath(0xFFFF, 0xFFFF, Gid.ofIpv4(0x7F00_0004), Gid.ofIpv4(0x7F00_0005), 0, 2, 0, 64, 0,
                false, 17);
        return new CmLap(ACTIVE_COMM_ID, PASSIVE_COMM_ID, PASSIVE_QPN, 20, alt, Octets.EMPTY);
    }

    public static CmApr apr() {
        return new CmApr(PASSIVE_COMM_ID, ACTIVE_COMM_ID, ApStatus.SUCCESS, Octets.EMPTY, Octets.EMPTY);
    }
}
