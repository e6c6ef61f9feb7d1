/**
 * Raw Java UDP baselines for the soft-roce benchmarks: a {@code DatagramChannel} ping-pong and a UDP blast with
 * RC's datagram sizes and flow control, and a probe of what a port's socket shape (unconnected, behind a selector)
 * costs a ping-pong before any Ibex code runs ({@link dev.ibex.bench.udp.UdpWaitProbe}).
 */
package dev.ibex.bench.udp;
