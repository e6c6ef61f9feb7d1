package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * LoadAlternatePath (IBTA table 115): 0 Local Comm ID · 4 Remote Comm ID · 8 reserved (32) ·
 * 12 Remote QPN/EECN (24) · 15 Remote CM Response Timeout (bits 7..3) · 16 reserved (32) ·
 * 20 alternate path (44 bytes, LAP layout) · 64 Private Data (168).
 * The kernel refuses LAP on RoCE; this stack sends it only in an opt-in compatibility mode.
 */
public record CmLap(int localCommId, int remoteCommId, int remoteQpn, int remoteCmResponseTimeout,
        CmPath alternatePath, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 168;

    public CmLap {
        Fields.bits(remoteQpn, 24, "remote QPN");
        Fields.bits(remoteCmResponseTimeout, 5, "remote CM response timeout");
        Objects.requireNonNull(alternatePath, "alternatePath");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "LAP private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.LAP;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u24(s, o + 12, remoteQpn);
        NetworkOrder.u8(s, o + 15, remoteCmResponseTimeout << 3);
        alternatePath.encodeLap(s, o + 20);
        privateData.copyTo(s, o + 64);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmLap decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "LAP");
        return new CmLap(Fields.u32(s, o), Fields.u32(s, o + 4), Fields.u24(s, o + 12), Fields.u8(s, o + 15) >>> 3,
                CmPath.decodeLap(s, o + 20), Octets.copyOf(s, o + 64, PRIVATE_DATA_SIZE));
    }
}
