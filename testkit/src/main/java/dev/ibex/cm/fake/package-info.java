/**
 * An in-memory fake of the provider SPI for tests and benchmarks, shipped as the {@code testkit} artifact (cm-core's
 * own tests compile these sources; every other module depends on testkit).
 * {@link dev.ibex.cm.fake.FakeFabric} runs in one of two modes: {@code LOOPBACK}, where CM ids and QPs of the same
 * fabric really connect (address/route resolution, connect/accept/reject, disconnect, SEND/WRITE/READ/atomics,
 * UD and multicast, RNR back-pressure, flush on error, path migration) and {@code SCRIPTED}, where CM calls and
 * posted work requests are only recorded and the test injects CM events, completions and async events itself.
 * Resource counts, and misuse the verbs would punish (destroying a CQ with unacknowledged events, posting past
 * {@code max_send_wr}), are recorded so tests can assert them. Registered
 * with {@link java.util.ServiceLoader} as provider {@code fake}; never on a production class path.
 */
package dev.ibex.cm.fake;
