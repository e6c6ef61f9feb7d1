package dev.ibex.softroce.mad;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.MalformedPacketException.Reason;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** A whole 256-byte CM MAD: header and message. */
public record CmMad(MadHeader header, CmMessage message) {

    public CmMad {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(message, "message");
        if (header.attributeId() != message.attribute().id()) {
            throw new IllegalArgumentException("MAD attribute ID 0x" + Integer.toHexString(header.attributeId())
                    + " does not match the " + message.attribute() + " message");
        }
    }

    /** A CM Send MAD carrying {@code message} under {@code transactionId}. */
    public static CmMad send(long transactionId, CmMessage message) {
        return new CmMad(MadHeader.cmSend(transactionId, message.attribute()), message);
    }

    /** The header's transaction ID. */
    public long transactionId() {
        return header.transactionId();
    }

    /** Writes 256 bytes at {@code offset}. */
    public void encode(MemorySegment s, long offset) {
        header.encode(s, offset);
        message.encode(s, offset + MadHeader.SIZE);
    }

    /**
     * Decodes 256 bytes at {@code offset}; refuses other base versions, classes, class versions and
     * methods other than Send.
     */
    public static CmMad decode(MemorySegment s, long offset) throws MalformedPacketException {
        Fields.require(s, offset, MadHeader.MAD_SIZE, "CM MAD");
        MadHeader h = MadHeader.decode(s, offset);
        if (h.baseVersion() != MadHeader.BASE_VERSION || h.mgmtClass() != MadHeader.CLASS_CM
                || h.classVersion() != MadHeader.CM_CLASS_VERSION) {
            throw new MalformedPacketException(Reason.UNSUPPORTED_MAD, "base version " + h.baseVersion()
                    + ", class 0x" + Integer.toHexString(h.mgmtClass()) + ", class version " + h.classVersion()
                    + " (expected 1, 0x7, 2)");
        }
        CmAttribute attribute = CmAttribute.of(h.attributeId());
        if (attribute == null) {
            throw new MalformedPacketException(Reason.UNKNOWN_ATTRIBUTE,
                    "CM attribute 0x" + Integer.toHexString(h.attributeId()));
        }
        if (h.method() != MadHeader.METHOD_SEND) {
            throw new MalformedPacketException(Reason.UNEXPECTED_PACKET,
                    "CM method 0x" + Integer.toHexString(h.method()) + " (only Send is decoded)");
        }
        return new CmMad(h, CmMessage.decode(attribute, s, offset + MadHeader.SIZE));
    }
}
