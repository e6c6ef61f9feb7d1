/**
 * Management datagrams on QP1 for the IB Communication Manager as the kernel implements it over RoCE:
 * the 24-byte MAD header, every CM message of IBTA vol. 1 chapter 12 as a record with
 * {@code encode}/{@code decode}, the RDMA CM's {@code cma_hdr} and port-space service IDs, the
 * private-data limits users hit, and the UD framing of a MAD as a 280-byte RoCEv2 datagram.
 *
 * <p>Records validate their fields when constructed ({@link java.lang.IllegalArgumentException} for a value
 * wider than its wire field or private data over the limit), so {@code encode} never truncates.
 * {@code decode} reads from a segment and throws
 * {@link dev.ibex.softroce.wire.MalformedPacketException} for short input or reserved codes. The CM
 * itself (state machine, TIDs, retries) lives elsewhere; this package only knows the bytes.
 */
package dev.ibex.softroce.mad;
