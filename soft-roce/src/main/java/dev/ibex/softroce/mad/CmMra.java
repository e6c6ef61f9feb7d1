package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * MsgRcptAck (IBTA table 107): 0 Local Comm ID · 4 Remote Comm ID · 8 Message MRAed (bits 7..6) ·
 * 9 Service Timeout (bits 7..3) · 10 Private Data (222).
 *
 * @param serviceTimeout IBA time value (5 bits); the RDMA CM sends 24 (≈ 68.7 s)
 */
public record CmMra(int localCommId, int remoteCommId, CmMessageKind messageMraed, int serviceTimeout,
        Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 222;

    public CmMra {
        Objects.requireNonNull(messageMraed, "messageMraed");
        Fields.bits(serviceTimeout, 5, "service timeout");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "MRA private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.MRA;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u8(s, o + 8, messageMraed.code() << 6);
        NetworkOrder.u8(s, o + 9, serviceTimeout << 3);
        privateData.copyTo(s, o + 10);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmMra decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "MRA");
        int kind = Fields.u8(s, o + 8) >>> 6;
        CmMessageKind k = CmMessageKind.of(kind);
        if (k == null) {
            throw Fields.badField("MRA message MRAed " + kind);
        }
        return new CmMra(Fields.u32(s, o), Fields.u32(s, o + 4), k, Fields.u8(s, o + 9) >>> 3,
                Octets.copyOf(s, o + 10, PRIVATE_DATA_SIZE));
    }
}
