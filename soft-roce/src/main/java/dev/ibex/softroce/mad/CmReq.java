package dev.ibex.softroce.mad;

import static dev.ibex.softroce.mad.Fields.bits;
import static dev.ibex.softroce.mad.Fields.u16;
import static dev.ibex.softroce.mad.Fields.u24;
import static dev.ibex.softroce.mad.Fields.u32;
import static dev.ibex.softroce.mad.Fields.u64;
import static dev.ibex.softroce.mad.Fields.u8;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * ConnectRequest (IBTA table 106).
 *
 * <pre>
 *  0 Local Comm ID(32) · 4 reserved(8) · 5 Vendor ID(24) · 8 Service ID(64) · 16 Local CA GUID(64)
 * 24 reserved(32) · 28 Local Q_Key(32) · 32 Local QPN(24) · 35 Responder Resources(8)
 * 36 Local EECN(24) · 39 Initiator Depth(8) · 40 Remote EECN(24)
 * 43 Remote CM Response Timeout(5) · Transport Service Type(2) · End-to-End Flow Control(1)
 * 44 Starting PSN(24) · 47 Local CM Response Timeout(5) · Retry Count(3) · 48 P_Key(16)
 * 50 Path MTU(4) · RDC Exists(1) · RNR Retry Count(3) · 51 Max CM Retries(4) · SRQ(1) · Ext. Transport Type(3)
 * 52 primary path (44 bytes) · 96 alternate path (44 bytes; byte 139 bit 2: SAP Supported)
 * 140 Private Data (92; the RDMA CM puts its 36-byte cma_hdr first)
 * </pre>
 *
 * @param transportServiceType 0 RC, 1 UC, 3 XRC (with {@code extendedTransportType} 1)
 * @param pathMtu IB MTU enum value, see {@link dev.ibex.softroce.wire.Mtu#ofCode(int)}
 * @param remoteCmResponseTimeout IBA time value (5 bits)
 * @param localCmResponseTimeout IBA time value (5 bits)
 */
public record CmReq(int localCommId, int vendorId, long serviceId, long localCaGuid, int localQKey, int localQpn,
        int responderResources, int localEecn, int initiatorDepth, int remoteEecn, int remoteCmResponseTimeout,
        int transportServiceType, boolean endToEndFlowControl, int startingPsn, int localCmResponseTimeout,
        int retryCount, int pKey, int pathMtu, boolean rdcExists, int rnrRetryCount, int maxCmRetries, boolean srq,
        int extendedTransportType, CmPath primaryPath, CmPath alternatePath, boolean sapSupported,
        Octets privateData) implements CmMessage {

    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 92;
    private static final int PRIMARY = 52, ALTERNATE = 96, PRIVATE = 140;

    public CmReq {
        bits(vendorId, 24, "vendor ID");
        bits(localQpn, 24, "local QPN");
        bits(responderResources, 8, "responder resources");
        bits(localEecn, 24, "local EECN");
        bits(initiatorDepth, 8, "initiator depth");
        bits(remoteEecn, 24, "remote EECN");
        bits(remoteCmResponseTimeout, 5, "remote CM response timeout");
        bits(transportServiceType, 2, "transport service type");
        bits(startingPsn, 24, "starting PSN");
        bits(localCmResponseTimeout, 5, "local CM response timeout");
        bits(retryCount, 3, "retry count");
        bits(pKey, 16, "P_Key");
        bits(pathMtu, 4, "path MTU");
        bits(rnrRetryCount, 3, "RNR retry count");
        bits(maxCmRetries, 4, "max CM retries");
        bits(extendedTransportType, 3, "extended transport type");
        Objects.requireNonNull(primaryPath, "primaryPath");
        Objects.requireNonNull(alternatePath, "alternatePath");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "REQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REQ;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u24(s, o + 5, vendorId);
        NetworkOrder.u64(s, o + 8, serviceId);
        NetworkOrder.u64(s, o + 16, localCaGuid);
        NetworkOrder.u32(s, o + 28, localQKey);
        NetworkOrder.u24(s, o + 32, localQpn);
        NetworkOrder.u8(s, o + 35, responderResources);
        NetworkOrder.u24(s, o + 36, localEecn);
        NetworkOrder.u8(s, o + 39, initiatorDepth);
        NetworkOrder.u24(s, o + 40, remoteEecn);
        NetworkOrder.u8(s, o + 43,
                remoteCmResponseTimeout << 3 | transportServiceType << 1 | (endToEndFlowControl ? 1 : 0));
        NetworkOrder.u24(s, o + 44, startingPsn);
        NetworkOrder.u8(s, o + 47, localCmResponseTimeout << 3 | retryCount);
        NetworkOrder.u16(s, o + 48, pKey);
        NetworkOrder.u8(s, o + 50, pathMtu << 4 | (rdcExists ? 0x08 : 0) | rnrRetryCount);
        NetworkOrder.u8(s, o + 51, maxCmRetries << 4 | (srq ? 0x08 : 0) | extendedTransportType);
        primaryPath.encodeReq(s, o + PRIMARY);
        alternatePath.encodeReq(s, o + ALTERNATE);
        if (sapSupported) {
            NetworkOrder.u8(s, o + 139, u8(s, o + 139) | 0x04);
        }
        privateData.copyTo(s, o + PRIVATE);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmReq decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "REQ");
        int b43 = u8(s, o + 43), b47 = u8(s, o + 47), b50 = u8(s, o + 50), b51 = u8(s, o + 51);
        return new CmReq(u32(s, o), u24(s, o + 5), u64(s, o + 8), u64(s, o + 16), u32(s, o + 28),
                u24(s, o + 32), u8(s, o + 35), u24(s, o + 36), u8(s, o + 39), u24(s, o + 40),
                b43 >>> 3, (b43 >>> 1) & 0x3, (b43 & 1) != 0, u24(s, o + 44), b47 >>> 3, b47 & 0x7,
                u16(s, o + 48), b50 >>> 4, (b50 & 0x08) != 0, b50 & 0x7, b51 >>> 4, (b51 & 0x08) != 0, b51 & 0x7,
                CmPath.decodeReq(s, o + PRIMARY), CmPath.decodeReq(s, o + ALTERNATE),
                (u8(s, o + 139) & 0x04) != 0, Octets.copyOf(s, o + PRIVATE, PRIVATE_DATA_SIZE));
    }
}
