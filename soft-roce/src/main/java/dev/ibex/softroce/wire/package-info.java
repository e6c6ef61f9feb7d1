/**
 * RoCEv2 wire format: the transport headers that follow the UDP header (BTH and the extended headers),
 * the opcode table, PSN arithmetic, padding, the invariant CRC, and a packet builder and parser over
 * {@link java.lang.foreign.MemorySegment}s.
 *
 * <p>Layering: the header classes ({@link dev.ibex.softroce.wire.Bth}, {@link dev.ibex.softroce.wire.Reth},
 * {@link dev.ibex.softroce.wire.Aeth}, …) are static accessors over a segment and an offset — nothing is
 * allocated, nothing is validated beyond the segment's bounds. {@link dev.ibex.softroce.wire.RocePacket}
 * is a reusable flyweight that validates a received datagram once and then reads its fields;
 * {@link dev.ibex.softroce.wire.PacketBuilder} is a reusable writer for outgoing datagrams. Both are
 * owned by one thread at a time. Everything is big-endian except the ICRC, which is stored
 * little-endian as rxe does.
 *
 * <p>The ICRC cannot be exact over ordinary UDP sockets (the kernel chooses the IP identification and
 * the receiver cannot see the IP header), so {@link dev.ibex.softroce.wire.Icrc} computes it with a
 * fixed convention: IPv4 identification 0, flags DF, addresses, ports and lengths taken from the
 * datagram. Soft devices verify it between themselves; tshark displays but never checks it.
 */
package dev.ibex.softroce.wire;
