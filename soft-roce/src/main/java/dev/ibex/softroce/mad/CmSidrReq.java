package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/**
 * ServiceIDResReq (IBTA table 119): 0 Request ID (32) · 4 P_Key (16) · 6 reserved (16) · 8 Service ID (64) ·
 * 16 Private Data (216; the RDMA CM puts its 36-byte cma_hdr first).
 */
public record CmSidrReq(int requestId, int pKey, long serviceId, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 216;

    public CmSidrReq {
        Fields.bits(pKey, 16, "P_Key");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "SIDR_REQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.SIDR_REQ;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, requestId);
        NetworkOrder.u16(s, o + 4, pKey);
        NetworkOrder.u64(s, o + 8, serviceId);
        privateData.copyTo(s, o + 16);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmSidrReq decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "SIDR_REQ");
        return new CmSidrReq(Fields.u32(s, o), Fields.u16(s, o + 4), Fields.u64(s, o + 8),
                Octets.copyOf(s, o + 16, PRIVATE_DATA_SIZE));
    }
}
