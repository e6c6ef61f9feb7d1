package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import java.net.InetSocketAddress;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A joined multicast group, as {@link RdmaMulticast#join} emits it. It owns a UD endpoint of its own, so
 * {@link #receive()} carries exactly the group's traffic. Disposing leaves the group (before the endpoint's id is
 * destroyed) and releases everything; receive() then completes. If the fabric drops the group
 * ({@code MULTICAST_ERROR}), receive() and pending sends fail with that error: join again.
 *
 * <p>Flow control as for {@link DatagramEndpoint}: datagrams that find no demand are dropped and counted in
 * {@link #drops()}, and so are those the device dropped where it reports them (soft-roce). Signals are emitted on
 * {@link #loop()}.
 */
public interface RdmaMembership extends Disposable {

    /**
     * The group address.
     *
     * @return the group's IP multicast address
     */
    InetSocketAddress group();

    /**
     * Whether this is a send-only membership (no receiving).
     *
     * @return {@code true} when the membership only sends
     */
    boolean isSendOnly();

    /**
     * What the group's members send (including this member's own sends when the fabric loops them back).
     *
     * @return the received datagrams (each lent as {@link DatagramMessage} says); completes when the group is left
     */
    Flux<DatagramMessage> receive();

    /**
     * Sends each item to the group as one datagram (types as for {@link RdmaConnection#send}).
     *
     * @param datagrams the payloads, one datagram each, in order, each at most the endpoint's
     * {@link DatagramEndpoint#maxPayload()}
     * @return a Mono that completes once every datagram completed locally (UD does not acknowledge delivery), or fails
     * with the first failure
     */
    Mono<Void> send(Publisher<?> datagrams);

    /**
     * Datagrams of the group that reached this member and were not delivered; see {@link DatagramEndpoint#drops()}.
     *
     * @return the count of datagrams not delivered, since the join
     */
    long drops();

    /**
     * {@link #dispose()} and wait for the leave to finish.
     *
     * @return a Mono that completes once the group is left and the endpoint closed
     */
    Mono<Void> leave();

    /**
     * The event loop the membership runs on and emits its signals on.
     *
     * @return the membership's loop
     */
    EventLoop loop();

    /**
     * The group-scoped UD endpoint behind the membership.
     *
     * @return the endpoint (disposed with the membership)
     */
    DatagramEndpoint endpoint();

    /**
     * Completes when the group is left and everything is released.
     *
     * @return a Mono that completes when the membership is gone
     */
    Mono<Void> onDispose();
}
