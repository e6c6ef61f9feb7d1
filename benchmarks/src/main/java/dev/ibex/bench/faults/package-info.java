/**
 * Faults on soft-roce: a small network on loopback ({@link dev.ibex.bench.faults.SoftNet}), self-checking traffic
 * ({@link dev.ibex.bench.faults.Sequenced}, {@link dev.ibex.bench.faults.EchoClient},
 * {@link dev.ibex.bench.faults.StreamServer}), exceptions the stack caught and logged
 * ({@link dev.ibex.bench.faults.LoggedFailures}), and the fault matrix.
 */
package dev.ibex.bench.faults;
