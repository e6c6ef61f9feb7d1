/**
 * rdma-core's C tools as baselines: running perftest ({@code ib_send_lat}, {@code ib_send_bw}, {@code ib_write_bw})
 * and {@code cmtime} as child processes and reading their result tables back.
 */
package dev.ibex.bench.perftest;
