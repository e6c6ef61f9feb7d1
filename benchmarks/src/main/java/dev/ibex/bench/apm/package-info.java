/**
 * APM failover time on soft-roce: a grid of local ACK timeout × retry_cnt, cut → first delivery on the alternate,
 * against the IBA's (retry_cnt + 1) × 4.096 µs × 2^timeout + RTT measured in the same run.
 */
package dev.ibex.bench.apm;
