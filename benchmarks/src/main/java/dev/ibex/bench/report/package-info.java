/**
 * What the end-to-end harnesses print: per metric the baseline measured in the same run, Ibex's figure, their ratio
 * and the target ({@link dev.ibex.bench.report.RatioTable}), figures from interleaved rounds
 * ({@link dev.ibex.bench.report.Rounds}) and the machine's load while measuring.
 */
package dev.ibex.bench.report;
