/**
 * The packet fuzzer: malformed and forged RoCEv2 packets and CM MADs against live soft-roce connections carrying
 * sequenced traffic, with a bystander connection next to the target ({@link dev.ibex.bench.fuzz.PacketFuzz}). What
 * counts as an escape is {@link dev.ibex.bench.fuzz.Escape}; the routes a packet takes and what each one owes it are
 * {@link dev.ibex.bench.fuzz.Route}.
 */
package dev.ibex.bench.fuzz;
