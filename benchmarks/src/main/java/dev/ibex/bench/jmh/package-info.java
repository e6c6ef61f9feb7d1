/**
 * JMH micro-benchmarks (run from the shaded {@code benchmarks/target/benchmarks.jar}; {@code ./ibex bench} runs every
 * class here with {@code -prof gc}): the steady-state callback path on the fake and on soft-roce
 * ({@link dev.ibex.bench.jmh.CallbackPathBenchmark}), the work-request/completion flyweights
 * ({@link dev.ibex.bench.jmh.FlyweightBenchmark}), the registered buffer pool
 * ({@link dev.ibex.bench.jmh.BufferPoolBenchmark}) and the soft provider's ICRC
 * ({@link dev.ibex.bench.jmh.IcrcBenchmark}). Every one must show ~0 B/op in {@code gc.alloc.rate.norm}.
 */
package dev.ibex.bench.jmh;
