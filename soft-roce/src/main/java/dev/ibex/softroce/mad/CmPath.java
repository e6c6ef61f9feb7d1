package dev.ibex.softroce.mad;

import static dev.ibex.softroce.mad.Fields.bits;

import dev.ibex.softroce.wire.Gid;
import dev.ibex.softroce.wire.NetworkOrder;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The path fields of a REQ (primary and alternate) and of a LAP (alternate). On RoCE the GIDs are the
 * IPv4-mapped addresses and both LIDs are 0xFFFF (permissive) because the hop limit exceeds 1.
 *
 * @param flowLabel 20 bits
 * @param packetRate 6 bits (IB rate enum)
 * @param sl 4 bits (service level)
 * @param localAckTimeout 5 bits (IBA time value: 4.096 µs · 2^t)
 */
public record CmPath(int localLid, int remoteLid, Gid localGid, Gid remoteGid, int flowLabel, int packetRate,
        int trafficClass, int hopLimit, int sl, boolean subnetLocal, int localAckTimeout) {

    /** All zeros: the "no alternate path" value of a REQ. */
    public static final CmPath ABSENT = new CmPath(0, 0, Gid.ZERO, Gid.ZERO, 0, 0, 0, 0, 0, false, 0);

    public CmPath {
        bits(localLid, 16, "local LID");
        bits(remoteLid, 16, "remote LID");
        Objects.requireNonNull(localGid, "localGid");
        Objects.requireNonNull(remoteGid, "remoteGid");
        bits(flowLabel, 20, "flow label");
        bits(packetRate, 6, "packet rate");
        bits(trafficClass, 8, "traffic class");
        bits(hopLimit, 8, "hop limit");
        bits(sl, 4, "SL");
        bits(localAckTimeout, 5, "local ACK timeout");
    }

    /** Whether this is {@link #ABSENT} (the kernel tests the alternate LID/GID the same way). */
    public boolean isAbsent() {
        return equals(ABSENT);
    }

    // REQ layout (relative to the path block: 52 primary, 96 alternate):
    // +0 local LID · +2 remote LID · +4 local GID · +20 remote GID · +36 word: flow label <<12, rate &0x3F
    // +40 traffic class · +41 hop limit · +42 SL<<4 | subnet local<<3 · +43 ACK timeout<<3 (| SAP<<2, alt)
    void encodeReq(MemorySegment s, long o) {
        NetworkOrder.u16(s, o, localLid);
        NetworkOrder.u16(s, o + 2, remoteLid);
        localGid.write(s, o + 4);
        remoteGid.write(s, o + 20);
        NetworkOrder.u32(s, o + 36, flowLabel << 12 | packetRate);
        NetworkOrder.u8(s, o + 40, trafficClass);
        NetworkOrder.u8(s, o + 41, hopLimit);
        NetworkOrder.u8(s, o + 42, sl << 4 | (subnetLocal ? 0x08 : 0));
        NetworkOrder.u8(s, o + 43, localAckTimeout << 3);
    }

    static CmPath decodeReq(MemorySegment s, long o) {
        int word = NetworkOrder.u32(s, o + 36);
        int slByte = NetworkOrder.u8(s, o + 42);
        return new CmPath(NetworkOrder.u16(s, o), NetworkOrder.u16(s, o + 2), Gid.read(s, o + 4),
                Gid.read(s, o + 20), word >>> 12, word & 0x3F, NetworkOrder.u8(s, o + 40),
                NetworkOrder.u8(s, o + 41), slByte >>> 4, (slByte & 0x08) != 0,
                NetworkOrder.u8(s, o + 43) >>> 3);
    }

    // LAP layout (relative to LAP offset 20):
    // +0 local LID · +2 remote LID · +4 local GID · +20 remote GID · +36 word: flow label <<12 (4 bits
    // reserved) and traffic class in the low byte · +40 hop limit · +41 rate &0x3F · +42 SL, subnet local
    // · +43 ACK timeout<<3
    void encodeLap(MemorySegment s, long o) {
        NetworkOrder.u16(s, o, localLid);
        NetworkOrder.u16(s, o + 2, remoteLid);
        localGid.write(s, o + 4);
        remoteGid.write(s, o + 20);
        NetworkOrder.u32(s, o + 36, flowLabel << 12 | trafficClass);
        NetworkOrder.u8(s, o + 40, hopLimit);
        NetworkOrder.u8(s, o + 41, packetRate);
        NetworkOrder.u8(s, o + 42, sl << 4 | (subnetLocal ? 0x08 : 0));
        NetworkOrder.u8(s, o + 43, localAckTimeout << 3);
    }

    static CmPath decodeLap(MemorySegment s, long o) {
        int word = NetworkOrder.u32(s, o + 36);
        int slByte = NetworkOrder.u8(s, o + 42);
        return new CmPath(NetworkOrder.u16(s, o), NetworkOrder.u16(s, o + 2), Gid.read(s, o + 4),
                Gid.read(s, o + 20), word >>> 12, NetworkOrder.u8(s, o + 41) & 0x3F, word & 0xFF,
                NetworkOrder.u8(s, o + 40), slByte >>> 4, (slByte & 0x08) != 0,
                NetworkOrder.u8(s, o + 43) >>> 3);
    }
}
