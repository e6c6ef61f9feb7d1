package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * AlternatePathResponse (IBTA table 116): 0 Local Comm ID · 4 Remote Comm ID · 8 Additional Info Length ·
 * 9 AP Status · 10 reserved (16) · 12 Additional Info (72) · 84 Private Data (148).
 */
public record CmApr(int localCommId, int remoteCommId, ApStatus status, Octets additionalInfo,
        Octets privateData) implements CmMessage {
    /** Private-data field size. */
    public static final int PRIVATE_DATA_SIZE = 148;
    /** Additional-info field size. */
    public static final int ADDITIONAL_INFO_SIZE = 72;

    public CmApr {
        Objects.requireNonNull(status, "status");
        Fields.limit(additionalInfo, ADDITIONAL_INFO_SIZE, "APR additional info");
        Fields.limit(privateData, PRIVATE_DATA_SIZE, "APR private data");
    }

    @Override
    public CmAttribute attribute() {
        return CmAttribute.APR;
    }

    @Override
    public void encode(MemorySegment s, long o) {
        Fields.zero(s, o, DATA_SIZE);
        NetworkOrder.u32(s, o, localCommId);
        NetworkOrder.u32(s, o + 4, remoteCommId);
        NetworkOrder.u8(s, o + 8, additionalInfo.length());
        NetworkOrder.u8(s, o + 9, status.code());
        additionalInfo.copyTo(s, o + 12);
        privateData.copyTo(s, o + 84);
    }

    /** Decodes 232 bytes at {@code o}. */
    public static CmApr decode(MemorySegment s, long o) throws MalformedPacketException {
        Fields.require(s, o, DATA_SIZE, "APR");
        int infoLength = Fields.u8(s, o + 8);
        if (infoLength > ADDITIONAL_INFO_SIZE) {
            throw Fields.badField("APR additional info length " + infoLength + " > " + ADDITIONAL_INFO_SIZE);
        }
        int code = Fields.u8(s, o + 9);
        ApStatus status = ApStatus.of(code);
        if (status == null) {
            throw Fields.badField("APR status " + code);
        }
        return new CmApr(Fields.u32(s, o), Fields.u32(s, o + 4), status, Octets.copyOf(s, o + 12, infoLength),
                Octets.copyOf(s, o + 84, PRIVATE_DATA_SIZE));
    }
}
