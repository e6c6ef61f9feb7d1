/**
 * Workloads over cm-reactive ({@code RdmaServer}/{@code RdmaClient}/{@code RdmaConnection}), shaped exactly like
 * their callback-API twins in {@link dev.ibex.bench.callback} so that the two can be compared in one run.
 */
package dev.ibex.bench.reactive;
