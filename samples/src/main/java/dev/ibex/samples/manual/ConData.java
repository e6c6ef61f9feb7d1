package dev.ibex.samples.manual;

import dev.ibex.cm.spi.Gid;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * {@code struct cm_con_data_t} of the RC example, what the two sides swap over TCP to connect their QPs: packed, in
 * network byte order, 34 bytes ({@code uint64_t addr; uint32_t rkey; uint32_t qp_num; uint16_t lid; uint8_t gid[16]}).
 *
 * @param addr the buffer's address
 * @param rkey its remote key
 * @param qpNum the QP number
 * @param lid the port's LID (0 on RoCE)
 * @param gid the GID of {@code -g}, or zero
 */
record ConData(long addr, int rkey, int qpNum, int lid, Gid gid) {
    static final int SIZE = 8 + 4 + 4 + 2 + 16;

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(SIZE); // big-endian: htonll, htonl, htons
        b.putLong(addr).putInt(rkey).putInt(qpNum).putShort((short) lid).put(gid.raw());
        return b.array();
    }

    static ConData decode(byte[] wire) {
        ByteBuffer b = ByteBuffer.wrap(wire);
        long addr = b.getLong();
        int rkey = b.getInt();
        int qpn = b.getInt();
        int lid = Short.toUnsignedInt(b.getShort());
        byte[] g = new byte[16];
        b.get(g);
        return new ConData(addr, rkey, qpn, lid, Gid.of(g));
    }

    /** The GID as the example prints it: sixteen {@code %02x} joined by colons. */
    String gidText() {
        return HexFormat.ofDelimiter(":").formatHex(gid.raw());
    }
}
