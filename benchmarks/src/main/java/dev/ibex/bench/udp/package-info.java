/**
 * Raw Java UDP baselines for the soft-roce benchmarks: a {@code DatagramChannel} ping-pong and a UDP blast with
 * RC's datagram sizes and flow control.
 */
package dev.ibex.bench.udp;
