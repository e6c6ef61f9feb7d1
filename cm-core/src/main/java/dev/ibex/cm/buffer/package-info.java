/**
 * Registered memory: {@link dev.ibex.cm.buffer.BufferPool pools} of fixed-size {@link dev.ibex.cm.buffer.Buffer
 * slices} carved from slabs that are registered once per protection domain, with explicit ownership
 * (acquire/release, double release detected, an opt-in leak detector), and {@link
 * dev.ibex.cm.buffer.RemoteBuffer descriptors} of a peer's memory for RDMA WRITE/READ/atomics.
 */
package dev.ibex.cm.buffer;
