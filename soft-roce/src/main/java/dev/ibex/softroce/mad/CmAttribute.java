package dev.ibex.softroce.mad;

/** CM attribute IDs ({@code include/rdma/ib_cm.h}). */
public enum CmAttribute {
    CLASS_PORT_INFO(0x0001),
    /** ConnectRequest. */
    REQ(0x0010),
    /** MsgRcptAck. */
    MRA(0x0011),
    /** ConnectReject. */
    REJ(0x0012),
    /** ConnectReply. */
    REP(0x0013),
    /** ReadyToUse. */
    RTU(0x0014),
    /** DisconnectRequest. */
    DREQ(0x0015),
    /** DisconnectReply. */
    DREP(0x0016),
    /** ServiceIDResReq. */
    SIDR_REQ(0x0017),
    /** ServiceIDResReqResp. */
    SIDR_REP(0x0018),
    /** LoadAlternatePath. */
    LAP(0x0019),
    /** AlternatePathResponse. */
    APR(0x001A);

    private static final CmAttribute[] VALUES = values();

    private final int id;

    CmAttribute(int id) {
        this.id = id;
    }

    /** The 16-bit attribute ID. */
    public int id() {
        return id;
    }

    /** The attribute with this ID, or {@code null}. */
    public static CmAttribute of(int id) {
        if (id == 0x0001) {
            return CLASS_PORT_INFO;
        }
        return id >= 0x0010 && id <= 0x001A ? VALUES[id - 0x000F] : null;
    }
}
