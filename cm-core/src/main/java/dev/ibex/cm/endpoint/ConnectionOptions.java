package dev.ibex.cm.endpoint;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Connection} is set up and run. Immutable: every {@code with…} method returns a copy with one
 * setting changed, checked at once ({@link IllegalArgumentException} names the setting and its range).
 *
 * <p>Failure detection. A peer that vanishes (process killed, host gone, path cut) is noticed by the transport
 * only when this side has something outstanding: the oldest unacknowledged request is retransmitted
 * {@link #retryCount()} times, each after the local ACK timeout ({@link #localAckTimeout()}: 4.096 µs ×
 * 2<sup>code</sup>), and then the connection fails with a {@link WorkCompletionException} RETRY_EXC_ERR. The worst
 * case is therefore (retryCount + 1) × 4.096 µs × 2<sup>localAckTimeout</sup> (with the CM's default code 17,
 * ≈ 0.54 s per try: 3.8 s for retryCount 6). A side that only receives, or is idle, sends nothing and so never
 * notices; that is what {@link #withKeepalive keepalive} is for (off by default, like TCP's).
 */
public final class ConnectionOptions {

    /** Connect within 10 s, 128 send slots, a 64-receive window, 64 B inline, retries 6, RNR retries 7 (forever). */
    public static final ConnectionOptions DEFAULT = new ConnectionOptions();

    private Duration connectTimeout = Duration.ofSeconds(10);
    private int resolveTimeoutMs = 2000;
    private int sendQueueDepth = 128;
    private int receiveWindow = 64;
    private int maxInline = 64;
    private int signalInterval = 16;
    private int responderResources = 16;
    private int initiatorDepth = 16;
    private int retryCount = 6;
    private int rnrRetryCount = 7;
    private int localAckTimeout = -1;
    private Duration drainTimeout = Duration.ofSeconds(2);
    private boolean rearmAfterMigration;
    private int minRnrTimer = 12;
    private Duration keepaliveInterval = Duration.ZERO;
    private int keepaliveCount = 3;
    private ReceiveMode receiveMode = ReceiveMode.SHARED;
    private int maxMessageSize = 1 << 20;
    private int rendezvousThreshold = 1 << 20;
    private boolean creditsInMessages = true;

    private ConnectionOptions() {}

    private ConnectionOptions copy() {
        ConnectionOptions c = new ConnectionOptions();
        c.connectTimeout = connectTimeout;
        c.resolveTimeoutMs = resolveTimeoutMs;
        c.sendQueueDepth = sendQueueDepth;
        c.receiveWindow = receiveWindow;
        c.maxInline = maxInline;
        c.signalInterval = signalInterval;
        c.responderResources = responderResources;
        c.initiatorDepth = initiatorDepth;
        c.retryCount = retryCount;
        c.rnrRetryCount = rnrRetryCount;
        c.localAckTimeout = localAckTimeout;
        c.drainTimeout = drainTimeout;
        c.rearmAfterMigration = rearmAfterMigration;
        c.minRnrTimer = minRnrTimer;
        c.keepaliveInterval = keepaliveInterval;
        c.keepaliveCount = keepaliveCount;
        c.receiveMode = receiveMode;
        c.maxMessageSize = maxMessageSize;
        c.rendezvousThreshold = rendezvousThreshold;
        c.creditsInMessages = creditsInMessages;
        return c;
    }

    // ---- settings ----

    /** {@return the deadline for the whole connect: name and address resolution, route, handshake (or from accept)} */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** {@return the timeout passed to {@code rdma_resolve_addr}/{@code rdma_resolve_route}, in milliseconds} */
    public int resolveTimeoutMs() {
        return resolveTimeoutMs;
    }

    /** {@return {@code max_send_wr}: operations outstanding at once (writability is derived from it)} */
    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    /**
     * What the peer may send ahead: in {@link ReceiveMode#SHARED} the credits granted to an Ibex peer (messages it
     * may have in flight or unconsumed here); in {@link ReceiveMode#WINDOW} the receives kept posted, each holding
     * one pool buffer.
     *
     * @return the number of messages (credits or posted receives)
     */
    public int receiveWindow() {
        return receiveWindow;
    }

    /** {@return the largest SEND/WRITE carried inline (asked of the QP; lowered if the device refuses)} */
    public int maxInline() {
        return maxInline;
    }

    /** {@return how many work requests at most go unsignaled in a row (the last of each batch is signaled)} */
    public int signalInterval() {
        return signalInterval;
    }

    /** {@return how many incoming RDMA READ/atomics are served at once (clamped to the device)} */
    public int responderResources() {
        return responderResources;
    }

    /** {@return how many outgoing RDMA READ/atomics may be outstanding at once (clamped to the device and the peer)} */
    public int initiatorDepth() {
        return initiatorDepth;
    }

    /**
     * Transport retries (0..7) before a request fails with RETRY_EXC_ERR. Default 6: Linux rxe treats 7 as
     * "retry forever", so a dead peer would never be reported there.
     *
     * @return the retry count
     */
    public int retryCount() {
        return retryCount;
    }

    /** {@return the RNR retries (0..7, 7 = forever: a sender waits until the receiver posts a receive)} */
    public int rnrRetryCount() {
        return rnrRetryCount;
    }

    /**
     * The local ACK timeout as an IBA code (0..31: 4.096 µs × 2<sup>code</sup>; 14 ≈ 67 ms, 17 ≈ 0.54 s), set with
     * {@code rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)} before connecting or accepting; -1 (default) keeps the
     * CM's value (derived from the path's packet life time: 17 on RoCE).
     *
     * @return the code, or -1 for the CM's
     */
    public int localAckTimeout() {
        return localAckTimeout;
    }

    /** {@return how long a closing connection waits for its flushed work before releasing anyway} */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /** {@return whether, after a path migration, the former primary path is loaded as the new alternate} */
    public boolean rearmAfterMigration() {
        return rearmAfterMigration;
    }

    /**
     * The RNR NAK delay this side asks a sender to wait when no receive is posted (IBA code 1..31: 1 = 0.01 ms,
     * 12 = 0.64 ms, 14 = 1.28 ms; 0 = 655 ms), loaded once ESTABLISHED because the CM's RTR attributes say 0; -1
     * keeps the CM's value. Receive credits follow demand, so this is how soon a stalled sender retries.
     *
     * @return the code, or -1 for the CM's
     */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * {@return the keepalive probe interval; {@link Duration#ZERO} (default) = no keepalive; see
     * {@link #withKeepalive}}
     */
    public Duration keepaliveInterval() {
        return keepaliveInterval;
    }

    /** {@return how many probes may go unanswered in a row before the connection fails; see {@link #withKeepalive}} */
    public int keepaliveCount() {
        return keepaliveCount;
    }

    /**
     * {@return where receives come from: the loop's shared receive queue with credits (default), or a window of its
     * own}
     */
    public ReceiveMode receiveMode() {
        return receiveMode;
    }

    /**
     * The largest message this end sends or receives, in bytes (default 1 MiB): a message of several buffers
     * ({@link dev.ibex.cm.buffer.BufferList}) goes out as one SEND per buffer and the peer delivers it whole. Both
     * ends say theirs in the connection's private data; a send is checked against the smaller of the two
     * ({@link MessageTooLargeException}). Needs shared receives at both ends ({@link ReceiveMode#SHARED}); with a
     * peer that takes none (a C program, {@link ReceiveMode#WINDOW}) a message is one buffer, as before.
     *
     * @return the limit in bytes
     */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** {@return whether keepalive probes are sent} */
    public boolean keepalive() {
        return !keepaliveInterval.isZero();
    }

    // ---- copies with one setting changed ----

    /**
     * A copy with another connect deadline.
     *
     * @param d the deadline for the whole connect, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is null, zero or negative
     */
    public ConnectionOptions withConnectTimeout(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("connectTimeout must be positive, got " + d);
        }
        ConnectionOptions c = copy();
        c.connectTimeout = d;
        return c;
    }

    /**
     * A copy with another address and route resolution timeout.
     *
     * @param ms the timeout in milliseconds, positive
     * @return the new options
     * @throws IllegalArgumentException when the value is out of range
     */
    public ConnectionOptions withResolveTimeoutMs(int ms) {
        positive("resolveTimeoutMs", ms);
        ConnectionOptions c = copy();
        c.resolveTimeoutMs = ms;
        return c;
    }

    /**
     * A copy with another send queue depth.
     *
     * @param n operations outstanding at once, positive
     * @return the new options
     * @throws IllegalArgumentException when the value is out of range
     */
    public ConnectionOptions withSendQueueDepth(int n) {
        positive("sendQueueDepth", n);
        ConnectionOptions c = copy();
        c.sendQueueDepth = n;
        return c;
    }

    /**
     * A copy with another receive window (credits, or receives posted).
     *
     * @param n messages the peer may send ahead, positive
     * @return the new options
     * @throws IllegalArgumentException when the value is out of range
     */
    public ConnectionOptions withReceiveWindow(int n) {
        positive("receiveWindow", n);
        ConnectionOptions c = copy();
        c.receiveWindow = n;
        return c;
    }

    /**
     * A copy with another inline limit.
     *
     * @param n the largest SEND/WRITE in bytes carried inline; 0 for none
     * @return the new options
     * @throws IllegalArgumentException when the value is out of range
     */
    public ConnectionOptions withMaxInline(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("maxInline must not be negative, got " + n);
        }
        ConnectionOptions c = copy();
        c.maxInline = n;
        return c;
    }

    /**
     * A copy with another signal interval.
     *
     * @param n work requests at most unsignaled in a row, positive
     * @return the new options
     * @throws IllegalArgumentException when the value is out of range
     */
    public ConnectionOptions withSignalInterval(int n) {
        positive("signalInterval", n);
        ConnectionOptions c = copy();
        c.signalInterval = n;
        return c;
    }

    /**
     * A copy with other RDMA READ/atomic depths (each clamped to the device when connecting).
     *
     * @param responder incoming RDMA READ/atomics served at once, not negative
     * @param initiator outgoing RDMA READ/atomics outstanding at once, not negative
     * @return the new options
     * @throws IllegalArgumentException when a depth is negative
     */
    public ConnectionOptions withRdmaDepth(int responder, int initiator) {
        if (responder < 0 || initiator < 0) {
            throw new IllegalArgumentException("RDMA READ/atomic depths must not be negative, got " + responder + "/"
                    + initiator);
        }
        ConnectionOptions c = copy();
        c.responderResources = responder;
        c.initiatorDepth = initiator;
        return c;
    }

    /**
     * A copy with other transport and RNR retries, each 0..7 (see {@link #retryCount()}, {@link #rnrRetryCount()}).
     *
     * @param retryCount transport retries before RETRY_EXC_ERR
     * @param rnrRetryCount RNR retries; 7 = forever
     * @return the new options
     * @throws IllegalArgumentException when a count is outside 0..7
     */
    public ConnectionOptions withRetries(int retryCount, int rnrRetryCount) {
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry counts are 3-bit values (0..7), got " + retryCount + "/"
                    + rnrRetryCount);
        }
        ConnectionOptions c = copy();
        c.retryCount = retryCount;
        c.rnrRetryCount = rnrRetryCount;
        return c;
    }

    /**
     * A copy with another local ACK timeout; see {@link #localAckTimeout()}.
     *
     * @param code the IBA code (0..31), or -1 for the CM's
     * @return the new options
     * @throws IllegalArgumentException when {@code code} is outside -1..31
     */
    public ConnectionOptions withLocalAckTimeout(int code) {
        if (code < -1 || code > 31) {
            throw new IllegalArgumentException("localAckTimeout is a 5-bit IBA code (0..31), or -1 for the CM's, got "
                    + code);
        }
        ConnectionOptions c = copy();
        c.localAckTimeout = code;
        return c;
    }

    /**
     * A copy with another drain timeout.
     *
     * @param d how long a closing connection waits for its flushed work, not negative
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is null or negative
     */
    public ConnectionOptions withDrainTimeout(Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException("drainTimeout must not be negative, got " + d);
        }
        ConnectionOptions c = copy();
        c.drainTimeout = d;
        return c;
    }

    /**
     * A copy that does or does not load the former primary path as the new alternate after a migration.
     *
     * @param on whether to re-arm after a migration
     * @return the new options
     */
    public ConnectionOptions withRearmAfterMigration(boolean on) {
        ConnectionOptions c = copy();
        c.rearmAfterMigration = on;
        return c;
    }

    /**
     * A copy with another RNR NAK delay; see {@link #minRnrTimer()}.
     *
     * @param code the IBA code (0..31), or -1 to keep the CM's
     * @return the new options
     * @throws IllegalArgumentException when {@code code} is outside -1..31
     */
    public ConnectionOptions withMinRnrTimer(int code) {
        if (code < -1 || code > 31) {
            throw new IllegalArgumentException("minRnrTimer is a 5-bit IBA code (0..31), or -1 to keep the CM's, got "
                    + code);
        }
        ConnectionOptions c = copy();
        c.minRnrTimer = code;
        return c;
    }

    /**
     * Keepalive, off by default: when the connection has been silent (no completion, no message) for
     * {@code interval}, a probe is sent — a zero-length RDMA WRITE, which the IBA lets a responder accept without
     * a memory key (C9-88) and which consumes no receive at the peer. Activity of any kind counts as an answer.
     * When {@code count} probes in a row stay unanswered, or a probe fails (RETRY_EXC_ERR once the retries are
     * exhausted), the connection fails with a {@link ConnectionFailedException}. A dead peer is so detected within about
     * {@code interval × (count + 1)}, or sooner by the transport's own retry bound. {@code Duration.ZERO} turns it
     * off.
     *
     * @param interval how long the connection may be silent before a probe; zero for no keepalive, else at least
     *     1 ms
     * @param count probes that may go unanswered in a row, at least 1
     * @return the new options
     * @throws IllegalArgumentException when {@code interval} is negative or below 1 ms, or {@code count} below 1
     */
    public ConnectionOptions withKeepalive(Duration interval, int count) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || count < 1) {
            throw new IllegalArgumentException("keepalive needs an interval >= 0 (0 = off) and a count >= 1, got "
                    + interval + "/" + count);
        }
        if (!interval.isZero() && interval.toMillis() < 1) {
            throw new IllegalArgumentException("keepalive interval must be at least 1 ms, got " + interval);
        }
        ConnectionOptions c = copy();
        c.keepaliveInterval = interval;
        c.keepaliveCount = count;
        return c;
    }

    /**
     * A copy with another receive mode.
     *
     * @param mode shared receives with credits, or a window of the connection's own
     * @return the new options
     * @throws NullPointerException when {@code mode} is null
     */
    public ConnectionOptions withReceiveMode(ReceiveMode mode) {
        ConnectionOptions c = copy();
        c.receiveMode = Objects.requireNonNull(mode, "mode");
        return c;
    }

    /**
     * The largest message this end sends or receives (1 byte .. 1 GiB); see {@link #maxMessageSize()}. The pool must
     * hold a message's buffers at both ends: a message of {@code n} bytes takes {@code ceil(n / bufferSize)} buffers
     * until it is released.
     *
     * @param bytes the limit, 1 to 2<sup>30</sup>
     * @return the new options
     * @throws IllegalArgumentException when {@code bytes} is out of range
     */
    public ConnectionOptions withMaxMessageSize(int bytes) {
        if (bytes <= 0 || bytes > 1 << 30) {
            throw new IllegalArgumentException("maxMessageSize must be 1 .. 1073741824 bytes, got " + bytes);
        }
        ConnectionOptions c = copy();
        c.maxMessageSize = bytes;
        return c;
    }

    /**
     * Messages of at least this many bytes go by rendezvous (the receiver READs them from buffers this end exposes;
     * see {@link Connection#send(dev.ibex.cm.buffer.BufferList, long)}) when both ends support it; 0: never, every
     * message goes eagerly. Default 1 MiB: below it the rendezvous' fixed cost (descriptor, "done", a bind and an
     * invalidation per buffer) outweighs keeping the message out of the receiver's shared receive queue
     * (docs/benchmarks.md, "Large messages").
     *
     * @return the threshold in bytes, 0 when rendezvous is off
     */
    public int rendezvousThreshold() {
        return rendezvousThreshold;
    }

    /**
     * A copy with another {@link #rendezvousThreshold()}.
     *
     * @param bytes 0 (off) or at least 1 byte
     * @return the new options
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public ConnectionOptions withRendezvousThreshold(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("rendezvousThreshold must be 0 (off) or positive, got " + bytes);
        }
        ConnectionOptions c = copy();
        c.rendezvousThreshold = bytes;
        return c;
    }

    /**
     * Whether a credit update this end owes rides in a message it sends in the same loop turn (as the message's
     * immediate data) instead of going as a zero-length SEND of its own — one work request, packet and ACK fewer per
     * update; used only when the peer says it reads them too ({@link ReceiveMode#SHARED} with credits). With it, the
     * application may not send immediate data whose top byte is 0xC5 (Ibex's credit tag). Default on; off is for
     * measuring the difference (docs/benchmarks.md, "Credits in the reply").
     *
     * @return true when credits may ride in messages
     */
    public boolean creditsInMessages() {
        return creditsInMessages;
    }

    /**
     * A copy with another {@link #creditsInMessages()}.
     *
     * @param on whether credits may ride in messages
     * @return the new options
     */
    public ConnectionOptions withCreditsInMessages(boolean on) {
        ConnectionOptions c = copy();
        c.creditsInMessages = on;
        return c;
    }

    private static void positive(String name, int v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + v);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectionOptions c && connectTimeout.equals(c.connectTimeout)
                && resolveTimeoutMs == c.resolveTimeoutMs && sendQueueDepth == c.sendQueueDepth
                && receiveWindow == c.receiveWindow && maxInline == c.maxInline && signalInterval == c.signalInterval
                && responderResources == c.responderResources && initiatorDepth == c.initiatorDepth
                && retryCount == c.retryCount && rnrRetryCount == c.rnrRetryCount
                && localAckTimeout == c.localAckTimeout && drainTimeout.equals(c.drainTimeout)
                && rearmAfterMigration == c.rearmAfterMigration && minRnrTimer == c.minRnrTimer
                && keepaliveInterval.equals(c.keepaliveInterval) && keepaliveCount == c.keepaliveCount
                && receiveMode == c.receiveMode && maxMessageSize == c.maxMessageSize
                && rendezvousThreshold == c.rendezvousThreshold && creditsInMessages == c.creditsInMessages;
    }

    @Override
    public int hashCode() {
        return Objects.hash(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline, signalInterval,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, localAckTimeout, drainTimeout,
                rearmAfterMigration, minRnrTimer, keepaliveInterval, keepaliveCount, receiveMode, maxMessageSize,
                rendezvousThreshold, creditsInMessages);
    }

    @Override
    public String toString() {
        return "ConnectionOptions[connectTimeout=" + connectTimeout + ", sendQueueDepth=" + sendQueueDepth
 + ", receiveMode=" + receiveMode + ", maxMessageSize=" + maxMessageSize
                + ", rendezvousThreshold=" + rendezvousThreshold + ", creditsInMessages=" + creditsInMessages
                + ", receiveWindow=" + receiveWindow + ", maxInline=" + maxInline + ", retryCount=" + retryCount
                + ", rnrRetryCount=" + rnrRetryCount + ", localAckTimeout=" + localAckTimeout + ", keepalive="
                + (keepalive() ? keepaliveInterval + "x" + keepaliveCount : "off") + "]";
    }
}
