package dev.ibex.softroce.net;

import static dev.ibex.softroce.net.PortFixture.datagram;
import static dev.ibex.softroce.net.PortFixture.next;
import static dev.ibex.softroce.net.PortFixture.tagsUntil;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ibex.softroce.net.PortFixture.Received;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each fault observably happens, on the sending and on the receiving side. Loopback keeps datagram order,
 * so a marker datagram sent last (tag 99) closes each observation without waiting on timers.
 */
class FaultInjectionTest {
    private static final int MARK = 99;

    private final PortFixture fx = new PortFixture();
    private final LinkedBlockingQueue<Received> atA = new LinkedBlockingQueue<>(), atB = new LinkedBlockingQueue<>(),
            atC = new LinkedBlockingQueue<>();
    private SoftPort a, b;

    @BeforeEach
    void open() throws Exception {
        a = fx.open("127.0.0.2", 0, atA);
        b = fx.open("127.0.0.3", a.udpPort(), atB);
    }

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void faultsAreOffByDefault() {
        assertThat(a.faults().isActive()).isFalse();
        assertThat(a.faults()).isNotSameAs(b.faults());
    }

    @Test
    void dropOnSendAndOnReceive() throws Exception {
        a.faults().onSend().drop(1.0);
        assertThat(a.send(datagram(1, 8), b.localAddress())).isEqualTo(SendResult.DROPPED);
        a.faults().onSend().drop(0);
        b.faults().onReceive().drop(1.0);
        assertThat(a.send(datagram(2, 8), b.localAddress())).isEqualTo(SendResult.SENT);
        await().atMost(Duration.ofSeconds(5)).until(() -> b.faults().counts().dropped() == 1);
        b.faults().onReceive().drop(0);
        a.send(datagram(MARK, 8), b.localAddress());
        assertThat(tagsUntil(atB, MARK)).isEmpty();
        assertThat(a.faults().counts().dropped()).isEqualTo(1);
        assertThat(b.faults().counts().dropped()).isEqualTo(1);
        assertThat(b.stats().received()).isEqualTo(2); // the receive-side drop happened after the socket
    }

    @Test
    void dropByPredicate() throws Exception {
        b.faults().onReceive().dropIf((src, sp, dst, dp, payload, len) ->
                (payload.get(ValueLayout.JAVA_BYTE, 0) & 1) == 0); // even tags
        for (int tag = 1; tag <= 6; tag++) {
            a.send(datagram(tag, 8), b.localAddress());
        }
        a.send(datagram(MARK, 8), b.localAddress());
        assertThat(tagsUntil(atB, MARK)).containsExactly(1, 3, 5);
        a.faults().onSend().dropIf((src, sp, dst, dp, payload, len) -> len == 12);
        assertThat(a.send(datagram(7, 12), b.localAddress())).isEqualTo(SendResult.DROPPED);
        assertThat(a.send(datagram(9, 13), b.localAddress())).isEqualTo(SendResult.SENT);
        b.faults().onReceive().dropIf(null);
        a.send(datagram(MARK, 8), b.localAddress());
        assertThat(tagsUntil(atB, MARK)).containsExactly(9);
    }

    @Test
    void duplicateOnSendAndOnReceive() throws Exception {
        a.faults().onSend().duplicate(1.0);
        assertThat(a.send(datagram(1, 8), b.localAddress())).isEqualTo(SendResult.SENT);
        a.faults().onSend().duplicate(0);
        assertThat(List.of(next(atB).tag(), next(atB).tag())).containsExactly(1, 1);
        assertThat(a.stats().sent()).isEqualTo(2);

        b.faults().onReceive().duplicate(1.0);
        a.send(datagram(2, 8), b.localAddress());
        assertThat(List.of(next(atB).tag(), next(atB).tag())).containsExactly(2, 2);
        b.faults().onReceive().duplicate(0);
        a.send(datagram(MARK, 8), b.localAddress());
        assertThat(tagsUntil(atB, MARK)).isEmpty();
        assertThat(b.stats().received()).isEqualTo(4);
        assertThat(b.stats().delivered()).isEqualTo(5);
    }

    @Test
    void reorderOnSendSwapsNeighbours() throws Exception {
        a.faults().onSend().reorder(1.0, Duration.ofSeconds(10));
        List<SendResult> results = new ArrayList<>();
        for (int tag = 1; tag <= 4; tag++) {
            results.add(a.send(datagram(tag, 8), b.localAddress()));
        }
        a.faults().onSend().reorder(0, Duration.ofSeconds(10));
        a.send(datagram(MARK, 8), b.localAddress());
        assertThat(results).containsExactly(SendResult.DEFERRED, SendResult.SENT, SendResult.DEFERRED,
                SendResult.SENT);
        assertThat(tagsUntil(atB, MARK)).containsExactly(2, 1, 4, 3);
        assertThat(a.faults().counts().reordered()).isEqualTo(2);
    }

    @Test
    void reorderOnReceiveAndReleaseAfterMaxHold() throws Exception {
        b.faults().onReceive().reorder(1.0, Duration.ofSeconds(10));
        a.send(datagram(1, 8), b.localAddress());
        a.send(datagram(2, 8), b.localAddress());
        assertThat(List.of(next(atB).tag(), next(atB).tag())).containsExactly(2, 1);

        b.faults().onReceive().reorder(1.0, Duration.ofMillis(20));
        a.send(datagram(3, 8), b.localAddress()); // held; nothing follows, so the hold expires
        Received late = next(atB);
        assertThat(late.tag()).isEqualTo(3);
        assertThat(late.thread()).startsWith("ibex-softroce-faults-");
    }

    @Test
    void delayOnReceiveAndOnSend() throws Exception {
        b.faults().onReceive().delay(Duration.ofMillis(150));
        long start = System.nanoTime();
        a.send(datagram(1, 8), b.localAddress());
        Received r = next(atB);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
        assertThat(r.thread()).startsWith("ibex-softroce-faults-127.0.0.3");
        b.faults().onReceive().delay(Duration.ZERO);

        a.faults().onSend().delay(Duration.ofMillis(150));
        start = System.nanoTime();
        assertThat(a.send(datagram(2, 8), b.localAddress())).isEqualTo(SendResult.DEFERRED);
        assertThat(next(atB).tag()).isEqualTo(2);
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
        assertThat(a.faults().counts().delayed()).isEqualTo(1);
    }

    @Test
    void blackHoleCutsOnePathBothWaysAndHeals() throws Exception {
        SoftPort c = fx.open("127.0.0.4", a.udpPort(), atC);
        a.faults().blackHole(a.ip(), b.ip());
        assertThat(a.faults().isBlackHoled(a.ip(), b.ip())).isTrue();
        assertThat(a.send(datagram(1, 8), b.localAddress())).isEqualTo(SendResult.DROPPED); // A → B cut at A
        assertThat(b.send(datagram(2, 8), a.localAddress())).isEqualTo(SendResult.SENT);    // B → A cut at A's receive
        assertThat(a.send(datagram(3, 8), c.localAddress())).isEqualTo(SendResult.SENT);    // A ↔ C unaffected
        c.send(datagram(4, 8), a.localAddress());
        assertThat(next(atC).tag()).isEqualTo(3);
        assertThat(next(atA).tag()).isEqualTo(4);

        await().atMost(Duration.ofSeconds(5)).until(() -> a.faults().counts().blackHoled() == 2);
        a.faults().heal(a.ip(), b.ip());
        assertThat(a.faults().isActive()).isFalse();
        a.send(datagram(MARK, 8), b.localAddress());
        b.send(datagram(MARK, 8), a.localAddress());
        assertThat(tagsUntil(atB, MARK)).isEmpty();
        assertThat(tagsUntil(atA, MARK)).isEmpty();
        assertThat(a.faults().counts().blackHoled()).isEqualTo(2);
    }

    @Test
    void aSharedInjectorDescribesTheFabric() throws Exception {
        FaultInjector fabric = new FaultInjector(1);
        SoftPort x = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.5")).udpPort(a.udpPort()).faults(fabric),
                atC);
        LinkedBlockingQueue<Received> atY = new LinkedBlockingQueue<>();
        SoftPort y = fx.open(SoftPort.builder(InetAddress.getByName("127.0.0.6")).udpPort(a.udpPort()).faults(fabric),
                atY);
        fabric.blackHole(x.ip(), y.ip()).blackHole(y.ip(), x.ip());
        assertThat(x.send(datagram(1, 8), y.localAddress())).isEqualTo(SendResult.DROPPED);
        assertThat(y.send(datagram(2, 8), x.localAddress())).isEqualTo(SendResult.DROPPED);
        fabric.reset();
        x.send(datagram(MARK, 8), y.localAddress());
        assertThat(tagsUntil(atY, MARK)).isEmpty();
    }

    @Test
    void seededFaultsRepeat() {
        assertThat(dropPattern(42)).isEqualTo(dropPattern(42)).isNotEqualTo(dropPattern(43));
        FaultInjector f = new FaultInjector(42);
        List<FaultRules.Verdict> first = verdicts(f);
        f.onSend().clear(); // reseeds
        assertThat(verdicts(f)).isEqualTo(first);
    }

    @Test
    void rulesRejectNonsense() {
        FaultRules r = a.faults().onSend();
        assertThatThrownBy(() -> r.drop(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.drop(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.delay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> r.reorder(0.5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }

    private List<SendResult> dropPattern(long seed) {
        FaultInjector f = new FaultInjector(seed);
        f.onSend().drop(0.5);
        List<SendResult> out = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            out.add(f.onSend().decide(0, 0, 0, 0, null, 0) == FaultRules.Verdict.DROP ? SendResult.DROPPED
                    : SendResult.SENT);
        }
        return out;
    }

    private static List<FaultRules.Verdict> verdicts(FaultInjector f) {
        f.onSend().duplicate(0.3).reorder(0.3, Duration.ofMillis(1));
        List<FaultRules.Verdict> out = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            out.add(f.onSend().decide(0, 0, 0, 0, null, 0));
        }
        return out;
    }
}
