/**
 * The host set of end-to-end benchmarks: the soft-roce provider on loopback against raw Java UDP in the same
 * process ({@link dev.ibex.bench.loopback.LoopbackBench}).
 */
package dev.ibex.bench.loopback;
