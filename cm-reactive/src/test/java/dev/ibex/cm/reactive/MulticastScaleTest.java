package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.spi.ResourceKind;
import dev.ibex.softroce.SoftRoceConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Many multicast groups on one soft device: no thread per group (one receive thread per device port serves them
 * all), members of different groups never hear each other, joins and leaves run while traffic flows, and the device's
 * group limit is a typed error.
 */
class MulticastScaleTest {
    static final Duration WAIT = Duration.ofSeconds(60);

    SoftHosts hosts;
    /** This run's /16 of 239/8, so parallel builds on this host do not hear each other. */
    final int net = ThreadLocalRandom.current().nextInt(256);

    @AfterEach
    void close() {
        if (hosts != null) {
            hosts.close();
        }
    }

    InetSocketAddress group(int i) {
        return new InetSocketAddress("239.197." + net + "." + i, 0);
    }

    RdmaMulticast member() {
        return RdmaMulticast.create().runOn(hosts.server).host(SoftHosts.SERVER_IP).receiveWindow(2).receiveQueue(1);
    }

    RdmaMulticast publisher() {
        return RdmaMulticast.create().runOn(hosts.client).host(SoftHosts.CLIENT_IP).sendOnly(true);
    }

    /** Threads of Ibex (soft-roce's, named ibex-…, and the loops): not the test's, Reactor's or Awaitility's. */
    static int liveThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("ibex-") || n.startsWith("srv-loop") || n.startsWith("cli-loop")).count();
    }

    int memberships() {
        return hosts.serverFabric.resources().get(ResourceKind.MULTICAST)
                + hosts.clientFabric.resources().get(ResourceKind.MULTICAST);
    }

    @Test
    void twoHundredFiftySixGroupsCostNoThreadEachAndStayApart() {
        hosts = new SoftHosts();
        int before = liveThreads();
        List<RdmaMembership> members = Flux.range(0, 256).flatMapSequential(i -> member().join(group(i)), 16)
                .collectList().block(WAIT);
        assertThat(members).hasSize(256);
        // the device's groups are read by one more thread, whatever their number (a constant, not one per group);
        // its unicast socket has none: the event loop reads it (soft-roce's receiveOnLoop, the default)
        assertThat(liveThreads() - before).as("threads added by 256 groups").isLessThanOrEqualTo(1);
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn(Thread::isAlive).map(Thread::getName)
                .filteredOn(n -> n.startsWith("ibex-softroce-rx-" + SoftHosts.SERVER_IP + ":"))
                .containsExactly("ibex-softroce-rx-" + SoftHosts.SERVER_IP + ":" + hosts.udpPort + "-groups");

        Map<Integer, List<String>> heard = new ConcurrentHashMap<>();
        List<Disposable> receivers = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 256; i++) {
            int me = i;
            receivers.add(members.get(i).receive().subscribe(d -> heard.computeIfAbsent(me,
                    k -> new CopyOnWriteArrayList<>()).add(d.asString())));
        }
        for (int i = 0; i < 256; i += 17) {
            RdmaMembership pub = publisher().join(group(i)).block(WAIT);
            pub.send(Mono.just("for " + i)).block(WAIT);
            int me = i;
            await().atMost(WAIT).until(() -> heard.containsKey(me));
            pub.leave().block(WAIT);
        }
        assertThat(heard).allSatisfy((i, messages) -> assertThat(messages).containsExactly("for " + i));
        assertThat(heard).hasSize(16);

        receivers.forEach(Disposable::dispose);
        Flux.fromIterable(members).flatMap(RdmaMembership::leave, 32).blockLast(WAIT);
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
    }

    @Test
    void membersJoinAndLeaveWhilePublishersSendToEveryGroup() {
        hosts = new SoftHosts();
        int groups = 32;
        List<RdmaMembership> publishers = Flux.range(0, groups).flatMapSequential(i -> publisher().join(group(i)), 8)
                .collectList().block(WAIT);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        // each publisher sends its group's number, one datagram every few milliseconds, until the test ends
        List<Disposable> traffic = new CopyOnWriteArrayList<>();
        for (int i = 0; i < groups; i++) {
            byte[] payload = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
            traffic.add(publishers.get(i).send(Flux.interval(Duration.ofMillis(5)).onBackpressureDrop()
                    .map(t -> payload)).subscribe(null, errors::add));
        }
        int threadsBefore = liveThreads();
        AtomicInteger foreign = new AtomicInteger();
        try {
            for (int round = 0; round < 3; round++) {
                List<RdmaMembership> members = Flux.range(0, groups)
                        .flatMapSequential(i -> member().join(group(i)), groups).collectList().block(WAIT);
                AtomicInteger[] got = new AtomicInteger[groups];
                List<Disposable> receivers = new CopyOnWriteArrayList<>();
                for (int i = 0; i < groups; i++) {
                    String me = Integer.toString(i);
                    AtomicInteger n = got[i] = new AtomicInteger();
                    receivers.add(members.get(i).receive().subscribe(d -> {
                        if (!d.asString().equals(me)) {
                            foreign.incrementAndGet();
                        }
                        n.incrementAndGet();
                    }, errors::add));
                }
                await().atMost(WAIT).untilAsserted(() -> assertThat(got).allSatisfy(n -> assertThat(n).hasPositiveValue()));
                // leave all at once, under traffic; receive() completes for each
                Flux.fromIterable(members).flatMap(RdmaMembership::leave, groups).blockLast(WAIT);
                await().atMost(WAIT).until(() -> receivers.stream().allMatch(Disposable::isDisposed));
            }
        } finally {
            traffic.forEach(Disposable::dispose);
        }
        assertThat(errors).isEmpty();
        assertThat(foreign).as("datagrams of another group").hasValue(0);
        assertThat(liveThreads() - threadsBefore).as("threads after three rounds of 32 joins").isLessThanOrEqualTo(1);
        Flux.fromIterable(publishers).flatMap(RdmaMembership::leave, groups).blockLast(WAIT);
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
    }

    @Test
    void joiningPastTheDeviceGroupLimitIsATypedErrorAndLeavingMakesRoom() {
        hosts = new SoftHosts(Map.of(SoftRoceConfig.MAX_MULTICAST_GROUPS, "4"));
        List<RdmaMembership> members = Flux.range(0, 4).concatMap(i -> member().join(group(i))).collectList()
                .block(WAIT);
        StepVerifier.create(member().join(group(4)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaConnectException.class, x -> {
                    assertThat(x.reason()).isEqualTo(RdmaConnectException.Reason.MULTICAST_ERROR);
                    assertThat(x.isGroupLimit()).isTrue();
                    assertThat(x).hasMessageContaining("group limit");
                }))
                .verify(WAIT);
        // a send-only join attaches nothing: it is not limited
        RdmaMembership sender = publisher().join(group(5)).block(WAIT);
        members.get(0).leave().block(WAIT);
        RdmaMembership fifth = member().join(group(4)).block(WAIT);
        assertThat(fifth.group()).isEqualTo(group(4));
        Flux.concat(Flux.fromIterable(members.subList(1, 4)), Mono.just(fifth), Mono.just(sender))
                .concatMap(RdmaMembership::leave).blockLast(WAIT);
        hosts.awaitQuiet();
    }
}
