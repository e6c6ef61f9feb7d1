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

    /** The group address. */
    InetSocketAddress group();

    /** Whether this is a send-only membership (no receiving). */
    boolean isSendOnly();

    /** What the group's members send (including this member's own sends when the fabric loops them back). */
    Flux<DatagramMessage> receive();

    /** Sends each item to the group as one datagram (types as for {@link RdmaConnection#send}). */
    Mono<Void> send(Publisher<?> datagrams);

    /** Datagrams of the group that reached this member and were not delivered; see {@link DatagramEndpoint#drops()}. */
    long drops();

    /** {@link #dispose()} and wait for the leave to finish. */
    Mono<Void> leave();

    EventLoop loop();

    /** The group-scoped UD endpoint behind the membership. */
    DatagramEndpoint endpoint();

    /** Completes when the group is left and everything is released. */
    Mono<Void> onDispose();
}
