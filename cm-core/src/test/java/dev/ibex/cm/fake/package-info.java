/**
 * An in-memory fake of the provider SPI for unit tests (also reused by cm-reactive through cm-core's test-jar).
 * {@link dev.ibex.cm.fake.FakeFabric} runs in one of two modes: {@code LOOPBACK}, where CM ids and QPs of the same
 * fabric really connect (address/route resolution, connect/accept/reject, disconnect, SEND/WRITE/READ/atomics,
 * UD and multicast, RNR back-pressure, flush on error, path migration) and {@code SCRIPTED}, where CM calls and
 * posted work requests are only recorded and the test injects CM events, completions and async events itself.
 * Resource counts, and misuse the verbs would punish (destroying a CQ with unacknowledged events, posting past
 * {@code max_send_wr}), are recorded so tests can assert them. Never shipped.
 */
package dev.ibex.cm.fake;
