package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.datagram;
import static dev.ibex.softroce.net.PortFixture.next;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.softroce.net.PortFixture.Received;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** IPv4 multicast between soft ports on loopback (wire.md appendix A: joins work on lo). */
class MulticastTest {
    private final PortFixture fx = new PortFixture();
    private final LinkedBlockingQueue<Received> atA = new LinkedBlockingQueue<>(), atB = new LinkedBlockingQueue<>(),
            atC = new LinkedBlockingQueue<>();
    // a fresh group per run, so concurrent test JVMs on this host do not hear each other
    private final int group = 0xEF00_0000 | ThreadLocalRandom.current().nextInt(1, 0xFF_FFFF);

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void groupMembersReceiveWhatIsSentToTheGroup() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB);
        SoftPort c = fx.open("127.0.0.4", a.udpPort(), atC); // not a member
        assertThat(b.joinMulticast(group)).isTrue();
        assertThat(b.joinMulticast(group)).isFalse();
        assertThat(c.isJoined(group)).isFalse();

        UdpAddress to = UdpAddress.of(group, a.udpPort());
        assertThat(to.isMulticast()).isTrue();
        assertThat(a.send(datagram(1, 16), to)).isEqualTo(SendResult.SENT);
        Received r = next(atB);
        assertThat(r.tag()).isEqualTo(1);
        assertThat(r.srcIp()).isEqualTo(a.ip());
        assertThat(r.dstIp()).isEqualTo(group);
        assertThat(r.thread()).isEqualTo("ibex-softroce-rx-127.0.0.3:" + a.udpPort() + "-groups");

        // a member also hears its own sends (IP multicast loops back); the provider filters by source
        assertThat(a.joinMulticast(group)).isTrue();
        b.send(datagram(2, 16), to);
        assertThat(next(atA).tag()).isEqualTo(2);
        Received own = next(atB);
        assertThat(own.tag()).isEqualTo(2);
        assertThat(own.srcIp()).isEqualTo(b.ip());

        // the non-member hears nothing: a unicast marker is all it gets
        a.send(datagram(99, 8), c.localAddress());
        assertThat(next(atC).tag()).isEqualTo(99);
    }

    @Test
    void leavingStopsDelivery() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB);
        b.joinMulticast(group);
        UdpAddress to = UdpAddress.of(group, a.udpPort());
        a.send(datagram(1, 8), to);
        assertThat(next(atB).tag()).isEqualTo(1);
        assertThat(b.leaveMulticast(group)).isTrue();
        assertThat(b.leaveMulticast(group)).isFalse();
        assertThat(b.joinedGroups()).isZero();
        a.send(datagram(2, 8), to);
        a.send(datagram(99, 8), b.localAddress());
        assertThat(next(atB).tag()).isEqualTo(99);
        assertThat(atB).isEmpty();
        assertThat(b.joinMulticast(group)).isTrue(); // and rejoining works
        a.send(datagram(3, 8), to);
        assertThat(next(atB).tag()).isEqualTo(3);
    }

    @Test
    void oneThreadReceivesEveryGroupOfAPortAndTellsThemApart() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB);
        int base = group & 0xFFFF_FF00 & ~0xFF00; // 256 consecutive groups of this run's /16
        for (int i = 0; i < 256; i++) {
            assertThat(b.joinMulticast(base + i)).isTrue();
        }
        assertThat(b.joinedGroups()).isEqualTo(256);
        String name = "127.0.0.3:" + a.udpPort();
        assertThat(SoftPortTest.threadsNamed(name)).containsExactlyInAnyOrder("ibex-softroce-rx-" + name,
                "ibex-softroce-rx-" + name + "-groups");
        for (int i = 0; i < 256; i += 15) {
            a.send(datagram(i, 8), UdpAddress.of(base + i, a.udpPort()));
            Received r = next(atB);
            assertThat(r.tag()).isEqualTo(i);
            assertThat(r.dstIp()).as("delivered as sent to its own group").isEqualTo(base + i);
        }
        // leaving returns at once and stops delivery of that group only
        for (int i = 0; i < 256; i += 2) {
            assertThat(b.leaveMulticast(base + i)).isTrue();
        }
        a.send(datagram(2, 8), UdpAddress.of(base + 2, a.udpPort()));
        a.send(datagram(3, 8), UdpAddress.of(base + 3, a.udpPort()));
        assertThat(next(atB).tag()).isEqualTo(3);
        assertThat(b.joinedGroups()).isEqualTo(128);
        b.close();
        assertThat(SoftPortTest.threadsNamed(name)).isEmpty();
    }

    @Test
    void joinsAndLeavesFromManyThreadsAtOnceKeepEveryGroupApart() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB);
        int base = (group & 0xFFFF_0000) | 0x4000;
        int threads = 4, perThread = 32;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = base + t * perThread;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 3; round++) {
                        for (int i = 0; i < perThread; i++) {
                            assertThat(b.joinMulticast(first + i)).isTrue();
                        }
                        for (int i = 0; i < perThread; i++) {
                            assertThat(b.leaveMulticast(first + i)).isTrue();
                        }
                    }
                    for (int i = 0; i < perThread; i++) {
                        assertThat(b.joinMulticast(first + i)).isTrue();
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(b.joinedGroups()).isEqualTo(threads * perThread);
        for (int i = 0; i < threads * perThread; i += 7) {
            a.send(datagram(i, 8), UdpAddress.of(base + i, a.udpPort()));
            assertThat(next(atB).dstIp()).isEqualTo(base + i);
        }
    }

    /**
     * A group joined while its datagrams already pour in: its socket is ready the moment it is registered. The
     * receive thread once met such a key before the join had attached its group, died of a NullPointerException,
     * and every later join of the port failed (EINVAL from a closed selector) — seen in MulticastScaleTest.
     */
    @Test
    void rejoiningGroupsUnderAFloodKeepsTheReceiverAlive() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        SoftPort b = fx.open("127.0.0.3", a.udpPort(), atB);
        int base = (group & 0xFFFF_0000) | 0x8000;
        int groups = 8;
        java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread flood = Thread.ofPlatform().daemon().start(() -> {
            java.nio.ByteBuffer d = datagram(7, 8);
            while (flooding.get()) {
                for (int i = 0; i < groups; i++) {
                    a.send(d.clear(), UdpAddress.of(base + i, a.udpPort()));
                }
            }
        });
        String receiver = "ibex-softroce-rx-127.0.0.3:" + a.udpPort() + "-groups";
        try {
            for (int round = 0; round < 300; round++) {
                for (int i = 0; i < groups; i++) {
                    assertThat(b.joinMulticast(base + i)).isTrue();
                }
                for (int i = 0; i < groups; i++) {
                    assertThat(b.leaveMulticast(base + i)).isTrue();
                }
            }
        } finally {
            flooding.set(false);
            flood.join(5_000);
        }
        assertThat(SoftPortTest.threadsNamed("127.0.0.3:" + a.udpPort())).contains(receiver);
        assertThat(b.joinMulticast(base)).isTrue();
        atB.clear();
        a.send(datagram(42, 8), UdpAddress.of(base, a.udpPort()));
        assertThat(next(atB).tag()).isEqualTo(42);
    }

    @Test
    void onlyMulticastAddressesCanBeJoined() throws Exception {
        SoftPort a = fx.open("127.0.0.2", 0, atA);
        assertThatThrownBy(() -> a.joinMulticast(a.ip())).isInstanceOf(IllegalArgumentException.class);
    }
}
