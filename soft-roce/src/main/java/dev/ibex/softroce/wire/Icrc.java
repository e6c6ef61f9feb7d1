package dev.ibex.softroce.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC (IBTA Annex A17, rxe {@code rxe_icrc.c}) over a UDP payload, with this
 * stack's fixed IP convention.
 *
 * <p>CRC-32 (the IEEE polynomial of {@link CRC32}) over: eight 0xFF bytes (the masked LRH); the IPv4
 * header with TOS, TTL and header checksum set to all-ones; the UDP header with its checksum set to
 * all-ones; the BTH with byte 4 (FECN/BECN/reserved) set to 0xFF; then everything after the BTH up to
 * the ICRC (extended headers, payload, pad). The result is stored <b>little-endian</b> in the last four
 * bytes of the UDP payload.
 *
 * <p>Convention, because a Java UDP socket can neither choose nor see the IP header: the IPv4
 * identification is taken as 0 and the flags as DF (0x4000, fragment offset 0); version/IHL 0x45,
 * protocol 17; addresses, ports and lengths come from the datagram. Packets built this way verify
 * between soft devices but not on a real RNIC or rxe, whose kernels put a non-zero IP ID on the wire.
 * An IPv6 variant will mask traffic class, flow label and hop limit instead (see wire.md §1.6).
 *
 * <p>An instance keeps scratch state and is confined to one thread; it allocates nothing per packet.
 */
public final class Icrc {
    /** ICRC length in bytes. */
    public static final int SIZE = 4;
    /** Bytes in front of the transport header that the IPv4 ICRC covers: masked LRH, IPv4, UDP. */
    private static final int IPV4_PREFIX = 8 + 20 + 8;

    private final CRC32 crc = new CRC32();
    private final byte[] head = new byte[IPV4_PREFIX + Bth.SIZE];
    /** Scratch for segments no byte buffer can view (heap segments over long[] …), made on first use: rare. */
    private byte[] chunk;
    // Byte-buffer view of the last segment seen: packet buffers are long-lived, so one view per buffer
    // serves every packet, and the CRC runs on the intrinsic without a per-packet view object.
    private MemorySegment viewed;
    private ByteBuffer view;

    public Icrc() {
        for (int i = 0; i < 8; i++) {
            head[i] = (byte) 0xFF;
        }
        head[8] = 0x45;            // version 4, IHL 5
        head[9] = (byte) 0xFF;     // TOS masked
        head[12] = 0;              // identification: convention 0
        head[13] = 0;
        head[14] = 0x40;           // flags DF, fragment offset 0
        head[15] = 0;
        head[16] = (byte) 0xFF;    // TTL masked
        head[17] = 17;             // protocol UDP
        head[18] = (byte) 0xFF;    // header checksum masked
        head[19] = (byte) 0xFF;
        head[34] = (byte) 0xFF;    // UDP checksum masked
        head[35] = (byte) 0xFF;
    }

    /**
     * Computes the ICRC of the UDP payload at {@code [offset, offset + length)} (the last 4 bytes, where
     * the ICRC goes, are not covered) sent from {@code srcIp:srcPort} to {@code dstIp:dstPort}.
     *
     * @return the CRC value as {@link CRC32#getValue()} gives it (stored little-endian on the wire)
     */
    public int ipv4(int srcIp, int dstIp, int srcPort, int dstPort, MemorySegment s, long offset, int length) {
        if (length < Bth.SIZE + SIZE) {
            throw new IllegalArgumentException("a RoCE UDP payload has at least 16 bytes, not " + length);
        }
        int totalLength = 20 + 8 + length;
        head[10] = (byte) (totalLength >>> 8);
        head[11] = (byte) totalLength;
        putInt(head, 20, srcIp);
        putInt(head, 24, dstIp);
        head[28] = (byte) (srcPort >>> 8);
        head[29] = (byte) srcPort;
        head[30] = (byte) (dstPort >>> 8);
        head[31] = (byte) dstPort;
        head[32] = (byte) ((8 + length) >>> 8);
        head[33] = (byte) (8 + length);
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, head, IPV4_PREFIX, Bth.SIZE);
        head[IPV4_PREFIX + 4] = (byte) 0xFF; // FECN/BECN/reserved masked
        crc.reset();
        crc.update(head, 0, head.length);
        update(s, offset + Bth.SIZE, length - Bth.SIZE - SIZE);
        return (int) crc.getValue();
    }

    /** Computes the IPv4 ICRC and stores it little-endian in the last 4 bytes of the UDP payload. */
    public void writeIpv4(int srcIp, int dstIp, int srcPort, int dstPort, MemorySegment s, long offset, int length) {
        int value = ipv4(srcIp, dstIp, srcPort, dstPort, s, offset, length);
        s.set(NetworkOrder.U32_LE, offset + length - SIZE, value);
    }

    /** Whether the stored ICRC matches the IPv4 ICRC of the packet. */
    public boolean checkIpv4(int srcIp, int dstIp, int srcPort, int dstPort, MemorySegment s, long offset, int length) {
        return ipv4(srcIp, dstIp, srcPort, dstPort, s, offset, length) == stored(s, offset, length);
    }

    /** The ICRC stored in the last 4 bytes of the UDP payload at {@code [offset, offset + length)}. */
    public static int stored(MemorySegment s, long offset, int length) {
        return s.get(NetworkOrder.U32_LE, offset + length - SIZE);
    }

    private void update(MemorySegment s, long offset, int length) {
        if (length == 0) {
            return;
        }
        if (s != viewed && (s.isNative() || s.heapBase().orElse(null) instanceof byte[])
                && s.byteSize() <= Integer.MAX_VALUE) {
            view = s.asByteBuffer();
            viewed = s;
        }
        if (s == viewed) {
            ByteBuffer v = view;
            v.clear().position((int) offset).limit((int) offset + length);
            crc.update(v);
            return;
        }
        if (chunk == null) { // every QP holds several instances and most never meet such a segment
            chunk = new byte[512];
        }
        for (int done = 0; done < length; ) { // heap segments over long[] etc. cannot be viewed as bytes
            int n = Math.min(chunk.length, length - done);
            MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset + done, chunk, 0, n);
            crc.update(chunk, 0, n);
            done += n;
        }
    }

    private static void putInt(byte[] b, int i, int v) {
        b[i] = (byte) (v >>> 24);
        b[i + 1] = (byte) (v >>> 16);
        b[i + 2] = (byte) (v >>> 8);
        b[i + 3] = (byte) v;
    }
}
