package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/** ReadyToUse (IBTA table 111): 0 Local Comm ID · 4 Remote Comm ID · 8 Private Data (224). */
public record CmRtu(int localCommId, int remoteCommId, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 224;

    public CmRtu {
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "RTU private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.RTU;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        privateData.copyTo(s, o + 8);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmRtu decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "RTU");
        return new CmRtu(Fields.u32(s, o), Fields.u32(s, o + 4), Octets.copyOf(s, o + 8, PRIVATE_DATA_SIZE));
    }
}
