package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.AsyncEvent;
import dev.ibex.cm.spi.AsyncEventType;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MigState;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.SoftRoceConfig;
import dev.ibex.softroce.net.FreePort;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Test support for APM: devices {@code softa} (127.0.0.2, 127.0.0.12) and {@code softb} (127.0.0.3, 127.0.0.13),
 * the second address on a second port or as a second GID of port 1, an RC pair {@code x} (on softa) and {@code y}
 * (on softb) connected by hand over the primary path a↔b, alternates a'↔b' loaded on request, a sequenced SEND
 * stream x → y checked for exactly-once in-order delivery, and the devices' async events collected.
 */
final class ApmPair implements AutoCloseable {
    static final String A = "127.0.0.2";
    static final String A2 = "127.0.0.12";
    static final String B = "127.0.0.3";
    static final String B2 = "127.0.0.13";
    static final int SIZE = 32;
    static final int RQ = 256;
    static final int SQ = 256;

    final Harness h;
    final boolean twoPorts;
    final SoftDevice da;
    final SoftDevice db;
    final Side x;
    final Side y;
    final Harness.Params params;
    private final List<AsyncEvent> eventsA = new ArrayList<>();
    private final List<AsyncEvent> eventsB = new ArrayList<>();
    private final RecvBatch rb;
    private final SendBatch sb;
    long sent;
    long sendsCompleted;
    long posted;
    long received;
    /** Whether the stream keeps receives posted at y (off: the sender meets RNR NAKs). */
    boolean postReceives = true;
    /** First failed send completion's status, or {@code null}. */
    WcStatus sendError;
    long sendErrorWrId = -1;

    ApmPair(boolean twoPorts, Harness.Params params, Map<String, String> extra) {
        this.twoPorts = twoPorts;
        this.params = params;
        Map<String, String> p = new HashMap<>();
        p.put(SoftRoceConfig.PORT, Integer.toString(FreePort.on(A, A2, B, B2)));
        p.put(SoftRoceConfig.DEVICES, twoPorts ? "softa=" + A + "/" + A2 + ",softb=" + B + "/" + B2
                : "softa=" + A + "+" + A2 + ",softb=" + B + "+" + B2);
        p.putAll(extra);
        h = new Harness(p);
        da = h.fabric.softDevices().get(0);
        db = h.fabric.softDevices().get(1);
        x = h.side(h.a, 1 << 20, new QpCap(SQ, RQ, 1, 1, 64), false, null, null);
        y = h.side(h.b, 1 << 20, new QpCap(SQ, RQ, 1, 1, 64), false, null, null);
        Harness.connect(x, y, params);
        rb = RecvBatch.allocate(h.arena, 64, 1);
        sb = SendBatch.allocate(h.arena, 64, 1);
    }

    static int ip(String dotted) {
        try {
            return Ipv4.toInt(InetAddress.getByName(dotted));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The alternate address vector from {@code from} to {@code toIp}, leaving through {@code fromIp}. */
    AhAttr path(SoftDevice from, String fromIp, String toIp) {
        int port = from.portOf(ip(fromIp));
        int index = from.gidIndexOf(ip(fromIp));
        try {
            return AhAttr.roce(Gid.of(InetAddress.getByName(toIp)), index, port);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Loads {@code fromIp → toIp} as {@code side}'s alternate and writes REARM. */
    void rearm(Side side, String fromIp, String toIp) {
        SoftDevice d = (SoftDevice) side.dev;
        AhAttr ah = path(d, fromIp, toIp);
        side.qp.modify(new QpAttr().altPath(ah, ah.portNum(), params.timeout).altPkeyIndex(0)
                .pathMigState(MigState.REARM));
    }

    /** Both ends load the mirrored alternate a'↔b' (or its reverse) and re-arm; traffic then arms them. */
    void rearmBoth(String xFrom, String yFrom) {
        rearm(x, xFrom, yFrom);
        rearm(y, yFrom, xFrom);
    }

    MigState mig(Side s) {
        return s.qp.query(QpAttr.PATH_MIG_STATE).pathMigState();
    }

    /** Sends until both ends report ARMED (ACKs carry MigReq = 0 back), bounded. */
    void armByTraffic() {
        long until = sent + 1_000_000;
        runUntil(() -> mig(x) == MigState.ARMED && mig(y) == MigState.ARMED, until, Duration.ofSeconds(10),
                "both ends ARMED");
        stream(1, Duration.ofSeconds(10)); // ends with a signaled send: every completion is in
    }

    /** The local address packets of {@code s} leave from now. */
    String primaryFrom(Side s) {
        return Ipv4.toString(((dev.ibex.softroce.transport.SoftQueuePair) s.qp).route().srcIp());
    }

    /** Cuts (or heals) the path between two addresses, both directions. */
    void cut(String local, String remote) {
        h.fabric.faults().blackHole(ip(local), ip(remote));
    }

    void heal(String local, String remote) {
        h.fabric.faults().heal(ip(local), ip(remote));
    }

    // ---- the sequenced stream -------------------------------------------------------------------------

    /** Posts, sends and polls until {@code done} holds or {@code limit} messages were sent, bounded by time. */
    void runUntil(BooleanSupplier done, long limit, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what + ": sent " + sent + ", received "
                        + received + ", x " + mig(x) + " " + Harness.describe(x.qp) + " / y " + mig(y) + " "
                        + Harness.describe(y.qp) + " / " + h.fabric.faults());
            }
            step(limit);
        }
    }

    /** Sends {@code n} more messages and waits until all arrived and completed. */
    void stream(long n, Duration timeout) {
        long target = sent + n;
        runUntil(() -> received >= target && sendsCompleted >= target, target, timeout, target + " messages");
    }

    void step(long limit) {
        postReceives(limit);
        postSends(limit);
        if (poll() == 0) {
            LockSupport.parkNanos(50_000);
        }
    }

    private void postReceives(long limit) {
        int n = 0;
        while (postReceives && posted < limit && posted - received < RQ && n < rb.capacity()) {
            long slot = posted % RQ;
            rb.clear(n).wrId(n, posted).single(n, y.mr.address() + slot * SIZE, SIZE, y.mr.lkey());
            n++;
            posted++;
        }
        if (n > 0) {
            y.qp.postRecv(rb, n);
        }
    }

    private void postSends(long limit) {
        int n = 0;
        while (sendError == null && sent < limit && sent - sendsCompleted < SQ - 16 && n < sb.capacity()
                && (sent < posted || !postReceives)) {
            long slot = sent % RQ;
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE, sent);
            x.buf.set(ValueLayout.JAVA_LONG, slot * SIZE + 8, ~sent);
            boolean signal = (sent + 1) % 8 == 0 || sent + 1 == limit;
            sb.clear(n).wrId(n, sent).opcode(n, WrOpcode.SEND)
                    .flags(n, SendFlags.INLINE | (signal ? SendFlags.SIGNALED : 0))
                    .single(n, x.mr.address() + slot * SIZE, SIZE, x.mr.lkey());
            n++;
            sent++;
        }
        if (n > 0) {
            x.qp.postSend(sb, n);
        }
    }

    private int poll() {
        int total = 0;
        int k;
        while ((k = x.scq.poll(x.wc)) > 0) {
            for (int i = 0; i < k; i++) {
                if (x.wc.status(i) != WcStatus.SUCCESS) {
                    if (sendError == null) {
                        sendError = x.wc.status(i);
                        sendErrorWrId = x.wc.wrId(i);
                    }
                } else {
                    sendsCompleted = Math.max(sendsCompleted, x.wc.wrId(i) + 1);
                }
            }
            total += k;
        }
        while ((k = y.rcq.poll(y.wc)) > 0) {
            for (int i = 0; i < k; i++) {
                if (y.wc.status(i) != WcStatus.SUCCESS) {
                    continue; // flushed at the end of a failing scenario
                }
                assertThat(y.wc.wrId(i)).as("in order").isEqualTo(received);
                long slot = received % RQ;
                long seq = y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE);
                assertThat(seq).as("exactly once, in order").isEqualTo(received);
                assertThat(y.buf.get(ValueLayout.JAVA_LONG, slot * SIZE + 8)).isEqualTo(~seq);
                received++;
            }
            total += k;
        }
        return total;
    }

    // ---- events -----------------------------------------------------------------------------------------

    /** Every async event of {@code d} so far (collected from its queue). */
    List<AsyncEvent> events(SoftDevice d) {
        List<AsyncEvent> list = d == da ? eventsA : eventsB;
        AsyncEvent e;
        while ((e = d.asyncEvents().poll()) != null) {
            list.add(e);
        }
        return list;
    }

    /** How many events of {@code type} {@code qp}'s device raised for it so far. */
    long count(Side s, AsyncEventType type) {
        return events((SoftDevice) s.dev).stream().filter(e -> e.type() == type && e.qp() == s.qp).count();
    }

    void awaitEvent(Side s, AsyncEventType type, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(s, type) == 0) {
            assertThat(System.nanoTime()).as("%s on %s", type, s.qp).isLessThan(deadline);
            LockSupport.parkNanos(200_000);
        }
    }

    static QueuePair qp(Side s) {
        return s.qp;
    }

    @Override
    public void close() {
        h.fabric.faults().reset();
        h.close();
    }
}
