package dev.ibex.softroce.mad;

import static dev.ibex.softroce.mad.Fields.bits;

import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;

/**
 * The 24-byte MAD common header ({@code struct ib_mad_hdr}).
 *
 * <pre>
 * 0 BaseVersion · 1 MgmtClass · 2 ClassVersion · 3 R(bit 7)+Method · 4 Status(16) · 6 ClassSpecific(16)
 * 8 TransactionID(64) · 16 AttributeID(16) · 18 reserved(16) · 20 AttributeModifier(32)
 * </pre>
 *
 * @param method the whole byte 3, response bit included (e.g. 0x03 Send, 0x81 GetResp)
 * @param transactionId the TID; the CM decides which messages reuse which TID (wire.md §2.1)
 */
public record MadHeader(int baseVersion, int mgmtClass, int classVersion, int method, int status,
        int classSpecific, long transactionId, int attributeId, int attributeModifier) {

    /** Header length. */
    public static final int SIZE = 24;
    /** A whole MAD: header plus 232 bytes of class data. */
    public static final int MAD_SIZE = 256;
    /** {@code IB_MGMT_BASE_VERSION}. */
    public static final int BASE_VERSION = 1;
    /** {@code IB_MGMT_CLASS_CM}. */
    public static final int CLASS_CM = 0x07;
    /** {@code IB_CM_CLASS_VERSION} (IBA 1.2). */
    public static final int CM_CLASS_VERSION = 2;
    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    /** Every CM message is a Send. */
    public static final int METHOD_SEND = 0x03;
    public static final int METHOD_GET_RESP = 0x81;

    public MadHeader {
        bits(baseVersion, 8, "BaseVersion");
        bits(mgmtClass, 8, "MgmtClass");
        bits(classVersion, 8, "ClassVersion");
        bits(method, 8, "Method");
        bits(status, 16, "Status");
        bits(classSpecific, 16, "ClassSpecific");
        bits(attributeId, 16, "AttributeID");
    }

    /** A CM Send header, as the kernel's {@code cm_format_mad_hdr} writes it (attribute modifier 0). */
    public static MadHeader cmSend(long transactionId, CmAttribute attribute) {
        return new MadHeader(BASE_VERSION, CLASS_CM, CM_CLASS_VERSION, METHOD_SEND, 0, 0, transactionId,
                attribute.id(), 0);
    }

    /** Whether the response bit (bit 7 of the method byte) is set. */
    public boolean isResponse() {
        return (method & 0x80) != 0;
    }

    /** Writes the 24 bytes at {@code offset}. */
    public void encode(MemorySegment s, long offset) {
        NetworkOrder.u8(s, offset, baseVersion);
        NetworkOrder.u8(s, offset + 1, mgmtClass);
        NetworkOrder.u8(s, offset + 2, classVersion);
        NetworkOrder.u8(s, offset + 3, method);
        NetworkOrder.u16(s, offset + 4, status);
        NetworkOrder.u16(s, offset + 6, classSpecific);
        NetworkOrder.u64(s, offset + 8, transactionId);
        NetworkOrder.u16(s, offset + 16, attributeId);
        NetworkOrder.u16(s, offset + 18, 0);
        NetworkOrder.u32(s, offset + 20, attributeModifier);
    }

    /** Reads 24 bytes at {@code offset}; any values are accepted (the caller checks class and version). */
    public static MadHeader decode(MemorySegment s, long offset) throws MalformedPacketException {
        Fields.require(s, offset, SIZE, "MAD header");
        return new MadHeader(Fields.u8(s, offset), Fields.u8(s, offset + 1), Fields.u8(s, offset + 2),
                Fields.u8(s, offset + 3), Fields.u16(s, offset + 4), Fields.u16(s, offset + 6),
                Fields.u64(s, offset + 8), Fields.u16(s, offset + 16), Fields.u32(s, offset + 20));
    }
}
