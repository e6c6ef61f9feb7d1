/**
 * The Reactor face of Ibex: servers, clients, connections, datagrams and multicast as {@code Mono} and
 * {@code Flux}, shaped after reactor-netty (immutable builders, {@code handle}, disposables).
 *
 * <h2>Reliable connections (RC)</h2>
 * {@link dev.ibex.cm.reactive.RdmaServer} binds a listener ({@code bind()} → {@code Mono<DisposableServer>}) with an
 * accept policy and a per-connection handler; {@link dev.ibex.cm.reactive.RdmaClient#connect()} →
 * {@code Mono<RdmaConnection>} fails with the typed CM reason and tears a half-made connection down on cancel.
 * {@link dev.ibex.cm.reactive.RdmaConnection}: {@code receive()} (demand = receive credits), {@code send(Publisher)}
 * (bounded by the send queue), RDMA WRITE/READ/atomics, {@code events()}, APM, {@code disconnect()}.
 *
 * <h2>Unreliable datagrams (UD) and multicast</h2>
 * {@link dev.ibex.cm.reactive.RdmaDatagram} binds a {@link dev.ibex.cm.reactive.DatagramEndpoint} (a UD QP on an
 * address of an RDMA device): {@code resolve(service, privateData)} finds a remote UD service with SIDR and emits a
 * {@link dev.ibex.cm.endpoint.UdPeer} destination; {@code send(peer, Publisher)} sends one datagram per item;
 * {@code receive()} emits {@link dev.ibex.cm.reactive.DatagramMessage}s (payload without the GRH, sender QP and
 * address); {@code replyTo(message)} makes a destination for the sender; an {@code accept(policy)} makes the
 * endpoint answer SIDR lookups. {@link dev.ibex.cm.reactive.RdmaMulticast#join} → {@code Mono<RdmaMembership>}
 * joins a group on a UD endpoint of its own; {@link dev.ibex.cm.reactive.RdmaMembership} receives the group's
 * datagrams, {@code send}s to the group, and leaves on dispose.
 *
 * <p>UD has no credits, so flow control differs from RC: the endpoint keeps its receive window posted; a datagram
 * that finds no demand waits in a small bounded queue (default a quarter of the window, {@code receiveQueue(n)})
 * and beyond it is released at once and counted in {@code drops()}. Nothing buffers without bound and nothing the
 * endpoint receives is lost without being counted: on soft-roce {@code drops()} also counts what the device dropped
 * for want of a posted receive; a hardware NIC (rdma-core) does not report those, so keep retained datagrams few.
 *
 * <h2>Buffers and threads</h2>
 * Received {@link dev.ibex.cm.reactive.Message}s and {@link dev.ibex.cm.reactive.DatagramMessage}s are registered
 * memory: valid during {@code onNext}, released after it unless {@code retain()}ed; queued ones are released on
 * cancel, error and close. Every signal is emitted on the endpoint's event loop, which must not block (tests run
 * with BlockHound); offload with {@code publishOn}.
 */
package dev.ibex.cm.reactive;
