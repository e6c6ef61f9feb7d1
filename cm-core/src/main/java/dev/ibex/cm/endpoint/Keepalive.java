package dev.ibex.cm.endpoint;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.ScheduledTask;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A connection's keepalive ({@link ConnectionOptions#withKeepalive}): every interval, an idle connection (no
 * completion, no message, nothing outstanding) sends a probe; while the probe stays unanswered each interval counts,
 * and {@code count} of them end the connection. One timer per connection, one probe at a time; the data path only
 * sets a flag. Loop-confined.
 */
final class Keepalive {

    /** What the keepalive asks of its connection. */
    interface Probe {
        /** Work outstanding on the send queue. */
        int outstanding();

        /** Posts a probe; false when it could not. */
        boolean probe();

        /** The peer is considered gone. */
        void expired(ConnectionFailedException error);
    }

    private final EventLoop loop;
    private final Probe probe;
    private final Duration interval;
    private final int count;
    private final java.net.InetSocketAddress remote;
    private final Runnable tick = this::tick;
    private ScheduledTask timer;
    private boolean active;
    private boolean probing;
    private int unanswered;
    private long probes;

    Keepalive(EventLoop loop, Probe probe, Duration interval, int count, java.net.InetSocketAddress remote) {
        this.loop = loop;
        this.probe = probe;
        this.interval = interval;
        this.count = count;
        this.remote = remote;
    }

    void start() {
        schedule();
    }

    /** Anything that proves the peer alive: a successful completion of any kind, a message. */
    void activity() {
        active = true;
    }

    /** Probes sent so far. */
    long probes() {
        return probes;
    }

    void stop() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /**
     * The probe completed: {@code answered}, the peer acknowledged it. A probe that failed or was flushed stays
     * unanswered, and the ticks go on counting it to expiry: a flush must not pass for an answer.
     */
    void probeDone(boolean answered) {
        if (answered) {
            probing = false;
            active = true;
        }
    }

    private void tick() {
        timer = null;
        if (active) {
            active = false;
            unanswered = 0;
        } else if (probing) {
            if (++unanswered >= count) {
                probe.expired(ConnectionFailedException.keepalive(remote, unanswered, interval));
                return;
            }
        } else if (probe.outstanding() == 0 && probe.probe()) {
            // with work outstanding the transport's own retries watch the peer (RETRY_EXC_ERR), and a peer that
            // answers with RNR NAKs is alive: only an idle connection needs a probe
            probing = true;
            probes++;
        }
        schedule();
    }

    private void schedule() {
        timer = loop.schedule(tick, interval.toNanos(), TimeUnit.NANOSECONDS);
    }
}
