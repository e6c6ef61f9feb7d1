/**
 * The Ibex side of the end-to-end benchmarks: workloads written against the callback API (cm-core's
 * {@code Connection}/{@code Listener}), runnable on any provider — soft-roce on loopback, rdma-core in the
 * Soft-RoCE VM. {@link dev.ibex.bench.callback.Sides} says where; {@link dev.ibex.bench.callback.PingPong},
 * {@link dev.ibex.bench.callback.Throughput} and {@link dev.ibex.bench.callback.ConnectionSetup} measure.
 */
package dev.ibex.bench.callback;
