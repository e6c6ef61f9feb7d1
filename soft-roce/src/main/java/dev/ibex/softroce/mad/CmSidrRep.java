package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * ServiceIDResReqResp (IBTA table 120): 0 Request ID (32) · 4 Status (8) · 5 Additional Info Length (8) ·
 * 6 Vendor ID[23:8] (16) · 8 QPN (24) · 11 Vendor ID[7:0] · 12 Service ID (64) · 20 Q_Key (32) ·
 * 24 Additional Info (72) · 96 Private Data (136).
 *
 * @param additionalInfo at most 72 bytes (a ClassPortInfo on REDIRECT); its length goes on the wire
 */
public record CmSidrRep(int requestId, SidrStatus status, int vendorId, int qpn, long serviceId, int qKey,
        Octets additionalInfo, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 136;
    /** Additional-info field size. */
    public static final int ADDITIONAL_INFO_SIZE = 72;

    public CmSidrRep {
        Objects.requireNonNull(status, "status");
        Fields.bits(vendorId, 24, "vendor ID");
        Fields.bits(qpn, 24, "QPN");
        Fields.limit(additionalInfo, ADDITIONAL_INFO_SIZE, "SIDR_REP additional info");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "SIDR_REP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REP;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, requestId);
        NetworkOrder.u8(s, o + 4, status.code());
        NetworkOrder.u8(s, o + 5, additionalInfo.length());
        NetworkOrder.u16(s, o + 6, vendorId >>> 8);
        NetworkOrder.u24(s, o + 8, qpn);
        NetworkOrder.u8(s, o + 11, vendorId);
        NetworkOrder.u64(s, o + 12, serviceId);
        NetworkOrder.u32(s, o + 20, qKey);
        additionalInfo.copyTo(s, o + 24);
        privateData.copyTo(s, o + 96);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmSidrRep decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "SIDR_REP");
        int code = Fields.u8(s, o + 4);
        SidrStatus status = SidrStatus.of(code);
        if (status == null) {
            throw Fields.badField("SIDR_REP status " + code);
        }
        int infoLength = Fields.u8(s, o + 5);
        if (infoLength > ADDITIONAL_INFO_SIZE) {
            throw Fields.badField("SIDR_REP additional info length " + infoLength + " > " + ADDITIONAL_INFO_SIZE);
        }
        int vendor = Fields.u16(s, o + 6) << 8 | Fields.u8(s, o + 11);
        return new CmSidrRep(Fields.u32(s, o), status, vendor, Fields.u24(s, o + 8), Fields.u64(s, o + 12),
                Fields.u32(s, o + 20), Octets.copyOf(s, o + 24, infoLength),
                Octets.copyOf(s, o + 96, PRIVATE_DATA_SIZE));
    }
}
