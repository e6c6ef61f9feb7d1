package dev.ibex.cm.reactive;

import dev.ibex.cm.endpoint.Datagram;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A bound unreliable-datagram endpoint (a UD QP on an {@code RDMA_PS_UDP} id), as {@link RdmaDatagram#bind()} emits
 * it: find remote UD services with {@link #resolve} (SIDR), send to them with {@link #send}, receive with
 * {@link #receive()}, answer the senders with {@link #replyTo}.
 *
 * <p><b>Threading.</b> Signals are emitted on the endpoint's {@link #loop()}, which must not block.
 *
 * <p><b>Flow control.</b> UD has no credits: the endpoint keeps its receive window posted and a datagram that finds
 * no demand (and a full, small receive queue) is released at once and counted in {@link #drops()} — never
 * buffered without bound, never lost without a count. A datagram that arrives while no receive is posted (the
 * subscriber retains many datagrams, or arrivals outrun the loop's re-posting) is dropped by the device: soft-roce
 * counts those in {@link #drops()} too, a hardware NIC (rdma-core) does not report them. So release promptly.
 * {@link #send} asks its publisher only for what fits the send queue.
 *
 * <p>Disposing closes the endpoint: receive() completes, pending operations fail, every resolved {@link UdPeer}'s
 * address handle is destroyed.
 */
public interface DatagramEndpoint extends Disposable {

    /**
     * Datagrams sent to this endpoint, in arrival order, emitted on the loop; one subscriber.
     *
     * @return the received datagrams (each lent as {@link DatagramMessage} says); completes when the endpoint closes
     */
    Flux<DatagramMessage> receive();

    /**
     * Resolves the UD service listening at {@code service} (SIDR, with up to 180 bytes of private data): emits the
     * destination ({@link UdPeer#privateData()} is what the service answered), or fails with
     * {@link dev.ibex.cm.RdmaConnectException} (UNREACHABLE: no such service, or it rejected, with its private
     * data). Cancelling releases the peer if the answer comes later.
     *
     * @param service     the remote UD service's address (IP and RDMA CM port)
     * @param privateData sent with the lookup, at most 180 bytes (may be empty)
     * @return a Mono that emits the destination
     */
    Mono<UdPeer> resolve(InetSocketAddress service, byte[] privateData);

    /**
     * Sends each item of {@code datagrams} as one datagram to {@code to} (types as for
     * {@link RdmaConnection#send}); each must fit the path MTU ({@link #maxPayload()}). Completes when all were
     * posted and completed locally — UD gives no delivery guarantee.
     *
     * @param to        the destination, from {@link #resolve} or {@link #replyTo} on this endpoint
     * @param datagrams the payloads, one datagram each, in order
     * @return a Mono that completes once every datagram completed locally, or fails with the first failure (an
     * {@link IllegalArgumentException} for a payload larger than {@link #maxPayload()}, an {@link
     * IllegalStateException}
     * once the endpoint is closed)
     */
    Mono<Void> send(UdPeer to, Publisher<?> datagrams);

    /**
     * A destination for the sender of {@code message} (from its GRH and source QP). The message must be live: call
     * it in {@code onNext} or on a retained message.
     *
     * @param message a datagram received on this endpoint, still live
     * @return a Mono that emits the sender as a destination, or fails with {@link IllegalArgumentException} when the
     * datagram carries no GRH to reply to
     */
    Mono<UdPeer> replyTo(DatagramMessage message);

    /**
     * Datagrams that reached this endpoint and were not delivered: released for want of demand (or after cancel), and
     * — where the device reports them, as soft-roce does — dropped by the device (no receive posted, a Q_Key mismatch,
     * too long) or by a receive that completed in error. On soft-roce every datagram lost inside Ibex is here:
     * sent − received = injected faults + drops() (+ what the kernel's socket buffers overflowed, which
     * {@code SoftFabric.socketDrops()} reports). On rdma-core the NIC's own drops are invisible to the library: only
     * Ibex's count. Any thread.
     *
     * @return the count of datagrams not delivered, since the endpoint was bound
     */
    long drops();

    /**
     * The bound address (port assigned).
     *
     * @return the local IP address and RDMA CM port
     */
    InetSocketAddress localAddress();

    /**
     * The QP number peers send to.
     *
     * @return the UD QP's number (24 bits)
     */
    int qpNum();

    /**
     * The largest datagram payload (the port's active MTU).
     *
     * @return the largest payload in bytes
     */
    int maxPayload();

    /**
     * The event loop the endpoint runs on and emits its signals on.
     *
     * @return the endpoint's loop
     */
    EventLoop loop();

    /**
     * The cm-core endpoint behind this one (for the callback API).
     *
     * @return the callback-level endpoint
     */
    Datagram datagram();

    /**
     * Completes when the endpoint is closed and everything is released.
     *
     * @return a Mono that completes when the endpoint is gone
     */
    Mono<Void> onDispose();
}
