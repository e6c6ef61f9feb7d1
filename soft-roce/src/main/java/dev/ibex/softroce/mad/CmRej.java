package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * ConnectReject (IBTA table 108): 0 Local Comm ID · 4 Remote Comm ID · 8 Message Rejected (bits 7..6) ·
 * 9 Reject Info Length (bits 7..1) · 10 Reason (16) · 12 ARI (72) · 84 Private Data (148).
 *
 * @param rejectInfo additional reject information, at most 72 bytes; its length goes on the wire
 */
public record CmRej(int localCommId, int remoteCommId, CmMessageKind messageRejected, CmRejectReason reason,
        Octets rejectInfo, Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 148;
    /** ARI field size. */
    public static final int REJECT_INFO_SIZE = 72;

    public CmRej {
        Objects.requireNonNull(messageRejected, "messageRejected");
        Objects.requireNonNull(reason, "reason");
        Fields.limit(rejectInfo, REJECT_INFO_SIZE, "REJ additional reject info");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "REJ private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.REJ;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u8(s, o + 8, messageRejected.code() << 6);
        NetworkOrder.u8(s, o + 9, rejectInfo.length() << 1);
        NetworkOrder.u16(s, o + 10, reason.code());
        rejectInfo.copyTo(s, o + 12);
        privateData.copyTo(s, o + 84);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmRej decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "REJ");
        int kind = Fields.u8(s, o + 8) >>> 6;
        CmMessageKind k = CmMessageKind.of(kind);
        if (k == null) {
            throw Fields.badField("REJ message rejected " + kind);
        }
        int ariLength = Fields.u8(s, o + 9) >>> 1;
        if (ariLength > REJECT_INFO_SIZE) {
            throw Fields.badField("REJ reject info length " + ariLength + " > " + REJECT_INFO_SIZE);
        }
        int code = Fields.u16(s, o + 10);
        CmRejectReason reason = CmRejectReason.of(code);
        if (reason == null) {
            throw Fields.badField("REJ reason " + code);
        }
        return new CmRej(Fields.u32(s, o), Fields.u32(s, o + 4), k, reason, Octets.copyOf(s, o + 12, ariLength),
                Octets.copyOf(s, o + 84, PRIVATE_DATA_SIZE));
    }
}
