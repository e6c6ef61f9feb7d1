package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/**
 * DisconnectRequest (IBTA table 112): 0 Local Comm ID · 4 Remote Comm ID · 8 Remote QPN/EECN(24) ·
 * 11 reserved · 12 Private Data (220). The receiver ignores a DREQ whose QPN is not its local QPN.
 */
public record CmDreq(int localCommId, int remoteCommId, int remoteQpn, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 220;

    public CmDreq {
        Fields.bits(remoteQpn, 24, "remote QPN");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "DREQ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREQ;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u24(s, o + 8, remoteQpn);
        privateData.copyTo(s, o + 12);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmDreq decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "DREQ");
        return new CmDreq(Fields.u32(s, o), Fields.u32(s, o + 4), Fields.u24(s, o + 8),
                Octets.copyOf(s, o + 12, PRIVATE_DATA_SIZE));
    }
}
