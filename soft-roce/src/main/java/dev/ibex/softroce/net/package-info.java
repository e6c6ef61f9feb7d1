/**
 * The UDP port layer of the soft provider: one {@link dev.ibex.softroce.net.SoftPort} per local IP address
 * (a soft RDMA "device port"), a pool of receive buffers, IPv4 multicast, fault injection and an optional
 * pcap tap. A port is a façade over {@code PortReception} (receiving, and lending its socket to an event loop),
 * {@code PortTransmission} (sending), {@code GroupReceiver} (multicast), {@code FaultTimer} and {@code PortTap}.
 *
 * <h2>Threading model</h2>
 * <ul>
 * <li>Each port owns one receive thread for its unicast socket, blocked in
 * {@link java.nio.channels.DatagramChannel#receive}, and — from its first multicast join — one more for all its
 * groups, blocked in a {@link java.nio.channels.Selector} over a socket per group ({@code GroupReceiver}); platform
 * daemon threads named {@code ibex-softroce-rx-…}. Together they are the soft NIC's receive engine: the number of
 * threads does not grow with the number of groups.</li>
 * <li>The {@link dev.ibex.softroce.net.DatagramHandler} is never called concurrently for one port: every
 * delivery (unicast, multicast, and datagrams released later by delay/reorder faults from the port's
 * fault timer thread) holds the port's delivery lock. It may be called from any of those threads. A
 * handler that blocks stalls the port like a NIC without receive descriptors; the socket buffer then
 * fills and the kernel drops datagrams, which RC retransmission and CM retries absorb.</li>
 * <li>{@link dev.ibex.softroce.net.SoftPort#send} may be called from any thread, including from inside the
 * handler; concurrent sends are serialised by an allocation-free lock of the port (so the channel's own lock,
 * which allocates a queue node per waiter when contended, never is). A sender's interrupt status is set aside during
 * the system call and restored, because an interrupted NIO send would close the socket for everyone.</li>
 * <li>In steady state (no faults, no tap, a stable set of peers) receiving and sending allocate nothing.</li>
 * </ul>
 */
package dev.ibex.softroce.net;
