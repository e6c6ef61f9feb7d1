package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/** DisconnectReply (IBTA table 113): 0 Local Comm ID · 4 Remote Comm ID · 8 Private Data (224). */
public record CmDrep(int localCommId, int remoteCommId, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 224;

    public CmDrep {
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "DREP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.DREP;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        privateData.copyTo(s, o + 8);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmDrep decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "DREP");
        return new CmDrep(Fields.u32(s, o), Fields.u32(s, o + 4), Octets.copyOf(s, o + 8, PRIVATE_DATA_SIZE));
    }
}
