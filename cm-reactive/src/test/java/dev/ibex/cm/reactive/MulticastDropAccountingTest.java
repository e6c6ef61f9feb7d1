package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.net.SocketDrops;
import dev.ibex.softroce.wire.Ipv4;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * Every datagram a member loses inside Ibex is counted in its {@code drops()}: on soft-roce, with the loss knob on,
 * sent − received = injected drops + drops() (+ what the kernel's socket buffers overflowed, reported separately;
 * normally nothing). Exercised where a slow member loses datagrams: its device with no receive posted (the member
 * holds its window), its bounded queue without demand, and a one-at-a-time consumer under a blast.
 */
class MulticastDropAccountingTest {
    static final Duration WAIT = Duration.ofSeconds(30);

    final SoftHosts hosts = new SoftHosts();
    final InetSocketAddress group = new InetSocketAddress("239.198." + ThreadLocalRandom.current().nextInt(256) + "."
            + ThreadLocalRandom.current().nextInt(1, 255), 0);
    final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void close() {
        ticker.shutdownNow();
        hosts.close();
    }

    /** Counts what it gets; holds messages while told to; asks for more only when told to. */
    static final class Member extends BaseSubscriber<DatagramMessage> {
        final AtomicLong received = new AtomicLong();
        final List<DatagramMessage> held = new CopyOnWriteArrayList<>();
        volatile boolean holding;

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            // no demand until the test asks
        }

        @Override
        protected void hookOnNext(DatagramMessage m) {
            received.incrementAndGet();
            if (holding) {
                held.add(m.retain());
            }
        }

        void releaseHeld() {
            holding = false;
            held.forEach(DatagramMessage::release);
            held.clear();
        }
    }

    @Test
    void sentMinusReceivedIsInjectedDropsPlusDrops() {
        SoftFabric publisherFabric = (SoftFabric) hosts.clientFabric;
        int groupIp = Ipv4.toInt(group.getAddress());
        SplittableRandom loss = new SplittableRandom(13);
        // the loss knob: one datagram in ten to the group is lost on the publisher's wire
        publisherFabric.faults().onSend().dropIf((src, srcPort, dst, dstPort, payload, length) -> dst == groupIp
                && nextInt(loss) == 0);

        RdmaMembership sub = RdmaMulticast.create().runOn(hosts.server).host(SoftHosts.SERVER_IP).receiveWindow(32)
                .receiveQueue(4).join(group).block(WAIT);
        RdmaMembership pub = RdmaMulticast.create().runOn(hosts.client).host(SoftHosts.CLIENT_IP).sendOnly(true)
                .join(group).block(WAIT);
        long socketDropsBefore = socketDrops();
        Member member = new Member();
        sub.receive().subscribe(member);
        AtomicLong sent = new AtomicLong();

        // 1. the member holds a window's worth: no receive is left posted, the device drops what comes next
        member.holding = true;
        member.request(28);
        send(pub, 400, sent);
        await().atMost(WAIT).until(() -> sub.drops() >= 100); // nothing counted these before: they vanished

        // 2. released, but no demand: four wait in the queue, the rest is released at once and counted
        member.releaseHeld();
        send(pub, 400, sent);

        // 3. a slow member, one datagram per millisecond, under a blast
        var slow = ticker.scheduleAtFixedRate(() -> member.request(1), 1, 1, TimeUnit.MILLISECONDS);
        send(pub, 2_000, sent);
        slow.cancel(false);
        member.request(Long.MAX_VALUE); // drain the queue: at rest, every datagram is accounted for

        await().atMost(WAIT).untilAsserted(() -> {
            long injected = publisherFabric.faults().counts().dropped();
            long kernel = Math.max(0, socketDrops() - socketDropsBefore);
            assertThat(sent.get() - member.received.get())
                    .as("sent %d, received %d, injected %d, drops() %d, socket overflow %d", sent.get(),
                            member.received.get(), injected, sub.drops(), kernel)
                    .isEqualTo(injected + sub.drops() + kernel);
        });
        assertThat(publisherFabric.faults().counts().dropped()).as("the knob was on").isPositive();
        assertThat(member.received.get()).isPositive();

        member.dispose();
        sub.dispose();
        pub.dispose();
        sub.onDispose().block(WAIT);
        pub.onDispose().block(WAIT);
        hosts.awaitQuiet();
    }

    private static synchronized int nextInt(SplittableRandom r) {
        return r.nextInt(10);
    }

    private long socketDrops() {
        long d = ((SoftFabric) hosts.serverFabric).socketDrops();
        return d == SocketDrops.UNKNOWN ? 0 : d;
    }

    private static void send(RdmaMembership pub, int n, AtomicLong sent) {
        pub.send(Flux.range(0, n).map(i -> new byte[64]).doOnNext(b -> sent.incrementAndGet())).block(WAIT);
    }
}
