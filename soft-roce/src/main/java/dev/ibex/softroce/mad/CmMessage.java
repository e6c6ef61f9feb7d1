package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import java.lang.foreign.MemorySegment;

/**
 * A CM message: the 232 bytes of class data that follow the MAD header. Offsets in the records' docs
 * are relative to the start of this data (MAD offset − 24).
 */
public sealed interface CmMessage
        permits CmReq, CmMra, CmRej, CmRep, CmRtu, CmDreq, CmDrep, CmSidrReq, CmSidrRep, CmLap, CmApr {

    /** Bytes of CM data in a MAD. */
    int DATA_SIZE = 232;

    /** The attribute ID this message travels under. */
    CmAttribute attribute();

    /** The private data (full wire size when decoded; at most the field size when built). */
    Octets privateData();

    /** Writes all 232 bytes at {@code offset}, reserved bytes and private-data padding as zeros. */
    void encode(MemorySegment s, long offset);

    /** Decodes the message of type {@code attribute} from 232 bytes at {@code offset}. */
    static CmMessage decode(CmAttribute attribute, MemorySegment s, long offset) throws MalformedPacketException {
        Fields.require(s, offset, DATA_SIZE, attribute + " data");
        return switch (attribute) {
            case REQ -> CmReq.decode(s, offset);
            case MRA -> CmMra.decode(s, offset);
            case REJ -> CmRej.decode(s, offset);
            case REP -> CmRep.decode(s, offset);
            case RTU -> CmRtu.decode(s, offset);
            case DREQ -> CmDreq.decode(s, offset);
            case DREP -> CmDrep.decode(s, offset);
            case SIDR_REQ -> CmSidrReq.decode(s, offset);
            case SIDR_REP -> CmSidrRep.decode(s, offset);
            case LAP -> CmLap.decode(s, offset);
            case APR -> CmApr.decode(s, offset);
            case CLASS_PORT_INFO -> throw new MalformedPacketException(Reason.UNEXPECTED_PACKET,
                    "ClassPortInfo is not a CM message this stack decodes");
        };
    }
}
