/**
 * The rdma-core targets in the Soft-RoCE VM: the callback workloads on the rdma-core provider against perftest and
 * {@code cmtime} on the same device in the same boot ({@link dev.ibex.bench.vm.VmBench}, {@code ./ibex bench --vm}).
 */
package dev.ibex.bench.vm;
