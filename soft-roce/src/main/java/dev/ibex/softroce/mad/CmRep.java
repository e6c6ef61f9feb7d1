package dev.ibex.softroce.mad;

import static dev.ibex.softroce.mad.Fields.bits;
import static dev.ibex.softroce.mad.Fields.u24;
import static dev.ibex.softroce.mad.Fields.u32;
import static dev.ibex.softroce.mad.Fields.u64;
import static dev.ibex.softroce.mad.Fields.u8;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/**
 * ConnectReply (IBTA table 110).
 *
 * <pre>
 *  0 Local Comm ID · 4 Remote Comm ID · 8 Local Q_Key · 12 Local QPN(24) · 15 Vendor ID[23:16]
 * 16 Local EECN(24) · 19 Vendor ID[15:8] · 20 Starting PSN(24) · 23 Vendor ID[7:0]
 * 24 Responder Resources · 25 Initiator Depth
 * 26 Target ACK Delay(5) · Failover Accepted(2) · End-to-End Flow Control(1) · 27 RNR Retry Count(3) · SRQ(1)
 * 28 Local CA GUID(64) · 36 Private Data (196)
 * </pre>
 *
 * @param vendorId 24 bits, spread over bytes 15, 19 and 23
 */
public record CmRep(int localCommId, int remoteCommId, int localQKey, int localQpn, int localEecn, int startingPsn,
        int vendorId, int responderResources, int initiatorDepth, int targetAckDelay, int failoverAccepted,
        boolean endToEndFlowControl, int rnrRetryCount, boolean srq, long localCaGuid, Octets privateData)
        implements CmMessage {

    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 196;

    public CmRep {
        bits(localQpn, 24, "local QPN");
        bits(localEecn, 24, "local EECN");
        bits(startingPsn, 24, "starting PSN");
        bits(vendorId, 24, "vendor ID");
        bits(responderResources, 8, "responder resources");
        bits(initiatorDepth, 8, "initiator depth");
        bits(targetAckDelay, 5, "target ACK delay");
        bits(failoverAccepted, 2, "failover accepted");
        bits(rnrRetryCount, 3, "RNR retry count");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "REP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REP;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u32(s, o + 8, localQKey);
        NetworkOrder.u24(s, o + 12, localQpn);
        NetworkOrder.u8(s, o + 15, vendorId >>> 16);
        NetworkOrder.u24(s, o + 16, localEecn);
        NetworkOrder.u8(s, o + 19, vendorId >>> 8);
        NetworkOrder.u24(s, o + 20, startingPsn);
        NetworkOrder.u8(s, o + 23, vendorId);
        NetworkOrder.u8(s, o + 24, responderResources);
        NetworkOrder.u8(s, o + 25, initiatorDepth);
        NetworkOrder.u8(s, o + 26, targetAckDelay << 3 | failoverAccepted << 1 | (endToEndFlowControl ? 1 : 0));
        NetworkOrder.u8(s, o + 27, rnrRetryCount << 5 | (srq ? 0x10 : 0));
        NetworkOrder.u64(s, o + 28, localCaGuid);
        privateData.copyTo(s, o + 36);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmRep decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "REP");
        int b26 = u8(s, o + 26), b27 = u8(s, o + 27);
        int vendor = u8(s, o + 15) << 16 | u8(s, o + 19) << 8 | u8(s, o + 23);
        return new CmRep(u32(s, o), u32(s, o + 4), u32(s, o + 8), u24(s, o + 12), u24(s, o + 16), u24(s, o + 20),
                vendor, u8(s, o + 24), u8(s, o + 25), b26 >>> 3, (b26 >>> 1) & 0x3, (b26 & 1) != 0, b27 >>> 5,
                (b27 & 0x10) != 0, u64(s, o + 28), Octets.copyOf(s, o + 36, PRIVATE_DATA_SIZE));
    }
}
