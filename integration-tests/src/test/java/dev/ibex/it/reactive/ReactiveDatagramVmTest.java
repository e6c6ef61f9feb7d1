package dev.ibex.it.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.endpoint.UdPeer;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.DatagramEndpoint;
import dev.ibex.cm.reactive.RdmaDatagram;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.it.interop.SwitchPort;
import dev.ibex.it.vm.SoftRoceVm;
import dev.ibex.it.vm.VmTest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactive UD and multicast on the rdma-core provider against the kernel's Soft-RoCE in the VM, between two JVMs:
 * this one (host a) and a {@link ReactiveDatagramPeer} (host b), through the switch's bridge with
 * {@code --hosts 2} (both on rxe0 without it). UD: SIDR resolve with private data, an echo through the service's
 * {@code replyTo}, a service nobody offers. Multicast: a send-only publisher here, a subscriber there, and a second
 * group the subscriber joined but never reads, whose datagrams must all be counted as drops.
 */
@VmTest
class ReactiveDatagramVmTest {
    static final Duration LIMIT = Duration.ofSeconds(240);
    static final Duration WAIT = Duration.ofSeconds(60);

    private final SoftRoceVm vm = SoftRoceVm.current();
    private final boolean twoHosts = vm.hosts().size() >= 2;
    private final String here = twoHosts ? vm.hosts().get(0).address() : vm.address();
    private final String there = twoHosts ? vm.hosts().get(1).address() : vm.address();
    private final SwitchPort port = twoHosts ? new SwitchPort(vm, vm.hosts().get(1).switchPort()) : null;
    private final List<PeerProcess> processes = new ArrayList<>();
    private EventLoopGroup loops;

    @BeforeEach
    void open() {
        loops = EventLoopGroup.open("rdma-core", ProviderConfig.DEFAULT, LoopOptions.DEFAULT.withLoops(1)
                .withBuffers(LoopOptions.DEFAULT.buffers().withLeakTracking(true)));
    }

    @AfterEach
    void close() {
        processes.forEach(PeerProcess::close);
        try {
            for (ResourceKind k : List.of(ResourceKind.CM_ID, ResourceKind.QUEUE_PAIR, ResourceKind.ADDRESS_HANDLE,
                    ResourceKind.MULTICAST)) {
                Awaitility.await().atMost(WAIT).untilAsserted(() ->
                        assertThat(loops.fabric().resources().get(k)).as(k.toString()).isZero());
            }
            assertThat(loops.bufferLeaks()).isEmpty();
        } finally {
            loops.close();
        }
    }

    private PeerProcess peer(String name, String... args) {
        PeerProcess p = PeerProcess.start(name, ReactiveDatagramPeer.class, List.of("ibex.provider=rdma-core"), args);
        processes.add(p);
        return p;
    }

    private long packets() {
        return port == null ? 0 : port.txPackets();
    }

    @Test
    void udSidrResolveAndEchoThroughReplyToBetweenTwoJvms() {
        long before = packets();
        PeerProcess service = peer("ud", "ud", there);
        String[] ud = service.await("UD ", LIMIT).split(" ");
        int servicePort = Integer.parseInt(ud[1]);
        int serviceQp = Integer.parseInt(ud[2]);

        DatagramEndpoint me = RdmaDatagram.create().runOn(loops).host(here).bindNow();
        assertThat(me.localAddress().getAddress().getHostAddress()).isEqualTo(here);
        UdPeer peer = me.resolve(new InetSocketAddress(there, servicePort), "me".getBytes(StandardCharsets.UTF_8))
                .block(WAIT);
        assertThat(peer.qpNum()).isEqualTo(serviceQp);
        assertThat(new String(peer.privateData(), StandardCharsets.UTF_8).trim()).isEqualTo("hi me");

        Mono<List<String>> echoes = me.receive().map(d -> {
                    assertThat(d.sourceQp()).isEqualTo(serviceQp);
                    assertThat(d.sourceAddress().getHostAddress()).isEqualTo(there);
                    return d.asString();
                }).take(5).collectList().cache();
        echoes.subscribe(null, e -> { }); // subscribed before sending
        me.send(peer, Flux.range(0, 5).map(i -> "d" + i)).block(WAIT);
        assertThat(echoes.block(WAIT)).containsExactly("d0", "d1", "d2", "d3", "d4");
        assertThat(me.drops()).isZero();
        peer.close();

        // SIDR to a port nobody serves: the kernel CM answers SIDR_REP status 1 (unsupported service)
        assertThatThrownBy(() -> me.resolve(new InetSocketAddress(there, servicePort == 4999 ? 4998 : 4999), null)
                .block(WAIT))
                .isInstanceOfSatisfying(RdmaConnectException.class,
                        x -> assertThat(x.isNoListener()).as(x.toString()).isTrue());
        me.dispose();
        me.onDispose().block(WAIT);
        if (port != null) {
            // SIDR REQ/REP twice, 5 echoes
            assertThat(packets() - before).as("packets to host b via " + port).isGreaterThanOrEqualTo(7);
        }
    }

    @Test
    void multicastPublisherHereSubscriberThereAndAnUnreadGroupCountsItsDrops() {
        InetSocketAddress read = new InetSocketAddress("239.1.4.1", 0);
        InetSocketAddress unread = new InetSocketAddress("239.1.4.2", 0);
        int count = 5;
        int unreadCount = 4;
        long before = packets();
        PeerProcess subscriber = peer("sub", "subscribe", there, read.getHostString(), unread.getHostString(),
                Integer.toString(count), Integer.toString(unreadCount));
        subscriber.await("JOINED", LIMIT);

        RdmaMulticast publisher = RdmaMulticast.create().runOn(loops).host(here).sendOnly(true);
        RdmaMembership toRead = publisher.join(read).block(WAIT);
        RdmaMembership toUnread = publisher.join(unread).block(WAIT);
        int[] sent = {0};
        // a fresh group may lose its first datagrams while the bridge learns the members: send until one arrives
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(300)).alias("the first datagram through")
                .until(() -> {
                    toRead.send(Mono.just("r" + sent[0]++)).block(WAIT);
                    return subscriber.line("GOT ") != null;
                });
        toUnread.send(Flux.range(0, unreadCount).map(i -> "u" + i)).block(WAIT);
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100)).alias("the subscriber's drop count")
                .until(() -> {
                    if (subscriber.line("DROPS ") == null && sent[0] < 1000) {
                        toRead.send(Mono.just("r" + sent[0]++)).block(WAIT);
                    }
                    return subscriber.line("DROPS ") != null;
                });
        assertThat(subscriber.exitCode(LIMIT)).as(subscriber.output()).isZero();
        List<String> got = subscriber.output().lines().filter(l -> l.startsWith("GOT ")).toList();
        assertThat(got).hasSize(count).allSatisfy(l -> assertThat(l).matches(
                "GOT r\\d+ " + here.replace(".", "\\.") + " " + toRead.endpoint().qpNum()));
        assertThat(subscriber.line("DROPS ")).as("every datagram of the unread group counted")
                .isEqualTo("DROPS " + unreadCount);
        assertThat(subscriber.line("LEFT")).isNotNull();
        assertThat(toRead.drops()).as("send-only: nothing received").isZero();
        toRead.leave().block(WAIT);
        toUnread.leave().block(WAIT);
        if (port != null) {
            assertThat(packets() - before).as("packets to host b via " + port)
                    .isGreaterThanOrEqualTo(count + unreadCount);
        }
    }
}
