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

    /** Datagrams sent to this endpoint, in arrival order, emitted on the loop; one subscriber. */
    Flux<DatagramMessage> receive();

    /**
     * Resolves the UD service listening at {@code service} (SIDR, with up to 180 bytes of private data): emits the
     * destination ({@link UdPeer#privateData()} is what the service answered), or fails with
     * {@link dev.ibex.cm.RdmaConnectException} (UNREACHABLE: no such service, or it rejected, with its private
     * data). Cancelling releases the peer if the answer comes later.
     */
    Mono<UdPeer> resolve(InetSocketAddress service, byte[] privateData);

    /**
     * Sends each item of {@code datagrams} as one datagram to {@code to} (types as for
     * {@link RdmaConnection#send}); each must fit the path MTU ({@link #maxPayload()}). Completes when all were
     * posted and completed locally — UD gives no delivery guarantee.
     */
    Mono<Void> send(UdPeer to, Publisher<?> datagrams);

    /**
     * A destination for the sender of {@code message} (from its GRH and source QP). The message must be live: call
     * it in {@code onNext} or on a retained message.
     */
    Mono<UdPeer> replyTo(DatagramMessage message);

    /**
     * Datagrams that reached this endpoint and were not delivered: released for want of demand (or after cancel), and
     * — where the device reports them, as soft-roce does — dropped by the device (no receive posted, a Q_Key mismatch,
     * too long) or by a receive that completed in error. On soft-roce every datagram lost inside Ibex is here:
     * sent − received = injected faults + drops() (+ what the kernel's socket buffers overflowed, which
     * {@code SoftFabric.socketDrops()} reports). On rdma-core the NIC's own drops are invisible to the library: only
     * Ibex's count. Any thread.
     */
    long drops();

    /** The bound address (port assigned). */
    InetSocketAddress localAddress();

    /** The QP number peers send to. */
    int qpNum();

    /** The largest datagram payload (the port's active MTU). */
    int maxPayload();

    EventLoop loop();

    /** The cm-core endpoint behind this one (for the callback API). */
    Datagram datagram();

    /** Completes when the endpoint is closed and everything is released. */
    Mono<Void> onDispose();
}
