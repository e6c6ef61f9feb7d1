package dev.ibex.cm.reactive;

import static dev.ibex.cm.reactive.SoftHosts.CLIENT_IP;
import static dev.ibex.cm.reactive.SoftHosts.NOBODY_IP;
import static dev.ibex.cm.reactive.SoftHosts.SERVER_IP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.spi.ResourceKind;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** {@link RdmaMulticast} and {@link RdmaMembership} on soft-roce (IP multicast on loopback). */
class MulticastTest {
    static final Duration WAIT = Duration.ofSeconds(20);

    final SoftHosts hosts = new SoftHosts();
    // a group of its own per test run, so parallel builds on this host do not hear each other
    final InetSocketAddress group = new InetSocketAddress("239.199." + ThreadLocalRandom.current().nextInt(256) + "."
            + ThreadLocalRandom.current().nextInt(1, 255), 0);

    @AfterEach
    void close() {
        hosts.close();
    }

    RdmaMulticast subscriber() {
        return RdmaMulticast.create().runOn(hosts.server).host(SERVER_IP);
    }

    RdmaMulticast publisher() {
        return RdmaMulticast.create().runOn(hosts.client).host(CLIENT_IP);
    }

    int memberships() {
        return hosts.serverFabric.resources().get(ResourceKind.MULTICAST)
                + hosts.clientFabric.resources().get(ResourceKind.MULTICAST);
    }

    @Test
    void membersReceiveWhatIsSentToTheGroupUntilTheyLeave() {
        RdmaMembership sub = subscriber().join(group).block(WAIT);
        assertThat(sub.group()).isEqualTo(group);
        assertThat(sub.isSendOnly()).isFalse();
        RdmaMembership pub = publisher().sendOnly(true).join(group).block(WAIT);
        assertThat(pub.isSendOnly()).isTrue();
        assertThat(memberships()).isEqualTo(2);

        StepVerifier.create(sub.receive().map(d -> {
                    assertThat(d.sourceQp()).isEqualTo(pub.endpoint().qpNum());
                    assertThat(d.sourceAddress().getHostAddress()).isEqualTo(CLIENT_IP);
                    return d.asString();
                }).take(3))
                .then(() -> pub.send(Flux.just("t1", "t2", "t3")).subscribe())
                .expectNext("t1", "t2", "t3")
                .expectComplete()
                .verify(WAIT);
        assertThat(sub.drops()).isZero();

        StepVerifier.create(sub.receive()).expectError(IllegalStateException.class).verify(WAIT); // one subscriber
        StepVerifier.create(sub.leave()).expectComplete().verify(WAIT);
        assertThat(sub.isDisposed()).isTrue();
        StepVerifier.create(pub.send(Mono.just("after"))).expectComplete().verify(WAIT); // nobody hears it
        pub.dispose();
        StepVerifier.create(pub.onDispose()).expectComplete().verify(WAIT);
        StepVerifier.create(pub.send(Mono.just("gone"))).expectError(IllegalStateException.class).verify(WAIT);
        assertThat(memberships()).isZero();
        hosts.awaitQuiet();
    }

    @Test
    void leavingCompletesTheReceiverAndAnUnreadGroupCountsItsDrops() {
        RdmaMembership sub = subscriber().receiveQueue(0).join(group).block(WAIT);
        RdmaMembership pub = publisher().sendOnly(true).join(group).block(WAIT);
        pub.send(Flux.range(0, 5).map(String::valueOf)).block(WAIT);
        await().atMost(WAIT).until(() -> sub.drops() == 5); // nobody subscribed, no queue: all counted
        StepVerifier.create(sub.receive())
                .then(sub::dispose)
                .expectComplete()
                .verify(WAIT);
        pub.dispose();
        pub.onDispose().block(WAIT);
        assertThat(memberships()).isZero();
        hosts.awaitQuiet();
    }

    @Test
    void aPinnedLoopTakesEveryJoinAndAReleasablePayloadFramesInPlaceOnTheLoop() {
        EventLoop loop = hosts.server.loops().getFirst();
        RdmaMulticast pinned = subscriber().runOn(loop);
        RdmaMembership sub = pinned.join(group).block(WAIT);
        RdmaMembership second = pinned.join(group).block(WAIT);
        assertThat(sub.loop()).isSameAs(loop);
        assertThat(second.loop()).isSameAs(loop);
        second.dispose();
        RdmaMembership pub = publisher().sendOnly(true).join(group).block(WAIT);
        java.util.concurrent.atomic.AtomicBoolean onLoop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
        ReleasablePayload framed = new ReleasablePayload() { // a 2-byte header in front of the payload
            @Override
            public int length() {
                return 6;
            }

            @Override
            public void copyTo(MemorySegment into) {
                onLoop.set(pub.loop().inEventLoop());
                into.set(ValueLayout.JAVA_BYTE, 0, (byte) 'H');
                into.set(ValueLayout.JAVA_BYTE, 1, (byte) ':');
                MemorySegment.copy(MemorySegment.ofArray("body".getBytes(StandardCharsets.UTF_8)), 0, into, 2, 4);
            }

            @Override
            public void release() {
                released.incrementAndGet();
            }
        };
        StepVerifier.create(sub.receive().map(DatagramMessage::asString).take(2))
                .then(() -> pub.send(Flux.just(framed, new WithImmediate(framed, 7))).subscribe())
                .expectNext("H:body", "H:body")
                .expectComplete()
                .verify(WAIT);
        assertThat(onLoop).as("written on the publisher's loop").isTrue();
        await().atMost(WAIT).untilAsserted(() -> assertThat(released).as("released once per send").hasValue(2));
        sub.dispose();
        pub.dispose();
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
    }

    @Test
    void joinFailsTypedForBadGroupsAndHosts() {
        StepVerifier.create(subscriber().join(new InetSocketAddress("10.1.2.3", 0)))
                .expectError(IllegalArgumentException.class).verify(WAIT);
        StepVerifier.create(subscriber().join(new InetSocketAddress("ff0e::1234", 0))) // no IPv6 groups on RoCEv2
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaConnectException.class,
                        x -> assertThat(x.reason()).isEqualTo(RdmaConnectException.Reason.MULTICAST_ERROR)))
                .verify(WAIT);
        StepVerifier.create(RdmaMulticast.create().runOn(hosts.server).host(NOBODY_IP).join(group))
                .expectError(RdmaException.class).verify(WAIT);
        StepVerifier.create(RdmaMulticast.create().runOn(hosts.server).join(group))
                .expectError(IllegalStateException.class).verify(WAIT);
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
    }

    @Test
    void cancellingAJoinOrAReceiverLeavesNothingBehind() {
        for (int i = 0; i < 3; i++) {
            // binding or joining; a loaded machine may finish the join before the cancel: then the member leaves
            subscriber().join(group).subscribe(RdmaMembership::dispose).dispose();
        }
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
        RdmaMembership sub = subscriber().join(group).block(WAIT);
        RdmaMembership pub = publisher().sendOnly(true).join(group).block(WAIT);
        StepVerifier.create(sub.receive(), 0)
                .then(() -> pub.send(Flux.range(0, 4).map(String::valueOf)).subscribe())
                .then(() -> await().atMost(WAIT).untilAsserted(() ->
                        assertThat(hosts.server.bufferLeaks()).hasSize(4))) // queued, waiting for demand
                .thenCancel()
                .verify(WAIT);
        await().atMost(WAIT).until(() -> sub.drops() == 4);
        sub.dispose();
        pub.dispose();
        hosts.awaitQuiet();
        assertThat(memberships()).isZero();
    }
}
