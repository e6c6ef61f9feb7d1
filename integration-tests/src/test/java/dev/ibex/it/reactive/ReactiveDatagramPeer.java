package dev.ibex.it.reactive;

import dev.ibex.cm.reactive.AcceptDecision;
import dev.ibex.cm.reactive.DatagramEndpoint;
import dev.ibex.cm.reactive.RdmaDatagram;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import reactor.core.publisher.Mono;

/**
 * The far side of the reactive UD and multicast tests, run as a process of its own ({@code main}) on whatever
 * provider the system properties select. Prints one line per milestone for the test to wait on.
 *
 * <ul>
 *   <li>{@code ud HOST}: a UD service on HOST (any port) that answers SIDR with "hi " + the requester's private data
 *       and echoes every datagram to its sender ({@code replyTo}); prints {@code UD port qpn}. Runs until killed.
 *   <li>{@code subscribe HOST READ UNREAD N M}: joins group READ, whose datagrams it reads, and group UNREAD, which
 *       it never reads (no receive queue either, so each arrival is a counted drop); prints {@code JOINED}, then
 *       {@code GOT payload from-ip qpn} for N datagrams of READ, {@code DROPS d} once UNREAD has dropped M (or after
 *       30 s), leaves both, prints {@code LEFT}; exit 0, else 1.
 * </ul>
 */
public final class ReactiveDatagramPeer {
    static final Duration WAIT = Duration.ofSeconds(60);

    private ReactiveDatagramPeer() {}

    public static void main(String[] args) {
        int code = switch (args[0]) {
            case "ud" -> ud(args[1]);
            case "subscribe" -> subscribe(args[1], args[2], args[3], Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]));
            default -> throw new IllegalArgumentException("ud|subscribe, not " + args[0]);
        };
        System.out.flush();
        System.exit(code);
    }

    static int ud(String host) {
        DatagramEndpoint service = RdmaDatagram.create().host(host)
                .accept(req -> Mono.just(AcceptDecision.accept(("hi " + new String(req.privateData(),
                        StandardCharsets.UTF_8).trim()).getBytes(StandardCharsets.UTF_8))))
                .bindNow();
        service.receive().concatMap(m -> {
            m.retain();
            return service.replyTo(m)
                    .flatMap(to -> service.send(to, Mono.just(m.message())).doFinally(s -> to.close()))
                    .doFinally(s -> m.release());
        }).subscribe(null, e -> ReactiveEchoPeer.say("ECHO FAILED " + e));
        ReactiveEchoPeer.say("UD " + service.localAddress().getPort() + " " + service.qpNum());
        service.onDispose().block(); // until killed
        return 0;
    }

    static int subscribe(String host, String read, String unread, int count, int unreadCount) {
        RdmaMembership readGroup = RdmaMulticast.create().host(host).join(group(read)).block(WAIT);
        RdmaMembership unreadGroup = RdmaMulticast.create().host(host).receiveQueue(0).join(group(unread))
                .block(WAIT);
        List<String> got = readGroup.receive()
                .map(d -> d.asString() + " " + d.sourceAddress().getHostAddress() + " " + d.sourceQp())
                .doOnNext(line -> ReactiveEchoPeer.say("GOT " + line))
                .take(count)
                .collectList()
                .doOnSubscribe(s -> ReactiveEchoPeer.say("JOINED"))
                .block(Duration.ofSeconds(240));
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> unreadGroup.drops() >= unreadCount);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // report what there is
        }
        ReactiveEchoPeer.say("DROPS " + unreadGroup.drops());
        readGroup.leave().block(WAIT);
        unreadGroup.leave().block(WAIT);
        ReactiveEchoPeer.say("LEFT");
        return got != null && got.size() == count ? 0 : 1;
    }

    private static InetSocketAddress group(String ip) {
        return new InetSocketAddress(ip, 0);
    }
}
