package dev.ibex.softroce.transport;

import java.util.Arrays;

/**
 * ACK coalescing for a loop that receives its own packets ({@link InlineReception}): while the loop reads a batch of
 * packets, a responder does not send the ACK a request asked for but notes it here; the loop sends the noted ACKs
 * once its handlers ran (at its next poll) or before it blocks. One ACK then acknowledges every request the batch
 * held (the IBA lets a responder coalesce: an ACK covers all requests up to its PSN), and it leaves after the
 * application's reply, so the peer wakes once for both. NAKs, RNR NAKs, READ responses and atomic ACKs are never
 * deferred. An ACK waits at most one turn of the loop (a few while a burst is read, below) — far below any
 * retransmission timeout.
 *
 * <p><b>Holding across turns.</b> A loop that spins ({@code poller.spinNanos}) may also hold an ACK across its turns
 * for up to {@code holdNanos} ({@code poller.ackHoldNanos}, 50 µs by default), while the responder
 * {@linkplain Responder#mayHoldAck allows it}: its QP sent a request since the ACK was noted (the application answers, so the peer's next request
 * comes soon and one ACK covers both), the ACK covers SENDs only (a WRITE's requester has nothing else to wait for)
 * and fewer than {@link #MAX_HELD_REQUESTS} of them. In a ping-pong this halves the datagrams per round trip or
 * better; a requester waits at most {@code holdNanos} longer for a SEND's completion. Before the loop blocks, every
 * noted ACK leaves. A requester that waits for each SEND's completion before it sends again would wait the hold on
 * every request, so when the hold time is up on an ACK whose requester sent nothing for most of it, that responder
 * stops holding for its next requests, a pause that doubles at each such stall ({@link NotedAck}).
 *
 * <p><b>One ACK for a burst.</b> A reception that reads one datagram at a time stops at the first that completes a
 * message for the application ({@link InlineReception#receiveNow}), so a message of several sent in one call (an
 * RSocket frame split over three buffers) is read a message per turn. While the last read stopped that way, the ACK
 * of a message the application has not answered waits for the next read instead of leaving at the next poll: it
 * leaves at the next poll after its QP sent, in the idle spin once a read hands the loop nothing, before the loop
 * sleeps, or after {@link #MAX_HELD_REQUESTS} requests — at most a few turns, since the reception reads in batches
 * again after a few turns behind.
 *
 * <p><b>Threading.</b> Confined to the polling thread it was installed on; a responder notes its ACK only from
 * inside its QP's task on that thread.
 */
public final class AckDeferral {
    private static final ThreadLocal<AckDeferral> CURRENT = new ThreadLocal<>();
    /** Requests one held ACK may cover: well below a requester's usual send queue, which the held ones occupy. */
    static final int MAX_HELD_REQUESTS = 8;

    private final long holdNanos;
    private Responder[] pending = new Responder[8];
    private int count;
    private boolean reading;
    /** When the oldest pending ACK was noted (only read while {@link #holdNanos} is positive). */
    private long oldestAt;
    /** The clock as this deferral last read it (only kept while {@link #holdNanos} is positive): see {@link #clock}. */
    private long now;

    /**
     * A deferral that may hold ACKs across turns.
     *
     * @param holdNanos how long an ACK may be held across the loop's turns (0: it leaves at the next poll)
     */
    AckDeferral(long holdNanos) {
        if (holdNanos < 0) {
            throw new IllegalArgumentException("holdNanos < 0: " + holdNanos);
        }
        this.holdNanos = holdNanos;
    }

    /** The deferral of the calling thread while it reads packets, or {@code null}: send ACKs at once. */
    static AckDeferral whileReading() {
        AckDeferral d = CURRENT.get();
        return d != null && d.reading ? d : null;
    }

    /** Makes this the calling thread's deferral (a poller's thread, once). */
    void install() {
        if (CURRENT.get() != this) {
            CURRENT.set(this);
        }
    }

    /** Starts a batch of reads on this thread: ACKs asked for meanwhile are noted. */
    void beginReading() {
        reading = true;
    }

    /** Ends the batch: later ACKs go out at once. */
    void endReading() {
        reading = false;
    }

    /** Notes that {@code r} owes an ACK (once per responder until flushed; the responder keeps the flag). */
    void add(Responder r) {
        if (count == pending.length) {
            pending = Arrays.copyOf(pending, count * 2); // grows with the connections of one batch, then stays
        }
        if (count == 0 && holdNanos > 0) {
            oldestAt = now = System.nanoTime();
        }
        pending[count++] = r;
    }

    /**
     * The time a request is noted at, for {@link NotedAck}'s stalls: the clock as this deferral last read it,
     * at most a turn of the loop old while an ACK is pending (it reads the clock at each poll then), so noting a
     * request costs no clock read of its own.
     */
    long clock() {
        return now;
    }

    /**
     * At a poll that will not block: sends the noted ACKs, in order, except those it may keep — all of them until
     * the oldest was held {@code holdNanos} (when the responder {@linkplain Responder#mayHoldAck may hold} its ACK),
     * and, when {@code burstBehind}, those of requests nobody answered yet ({@link Responder#awaitsBurst}).
     *
     * @param burstBehind whether the last read stopped early with datagrams likely behind it
     *     ({@link InlineReception#readingBehind}): a message of several that came in one call is read a message per
     *     turn, and one ACK for the burst saves the sender a datagram to read per message and this loop a
     *     {@code sendto} per message before it reads on (docs/benchmarks.md, "One ACK for a burst")
     */
    void flushDue(boolean burstBehind) {
        int n = count;
        if (n == 0) {
            return;
        }
        boolean holding = false;
        if (holdNanos > 0) {
            long t = System.nanoTime();
            now = t;
            holding = t - oldestAt < holdNanos;
            if (!holding && !burstBehind) {
                sendAll(true, t);
                return;
            }
        } else if (!burstBehind) {
            flush();
            return;
        }
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Responder r = pending[i];
            pending[i] = null;
            if ((burstBehind && r.awaitsBurst()) || (holding && r.mayHoldAck())) {
                pending[kept++] = r;
            } else {
                r.sendDeferredAck(false);
            }
        }
        count = kept;
    }

    /** Sends every noted ACK, in the order noted (before the loop blocks). */
    void flush() {
        sendAll(false, 0);
    }

    /**
     * Sends every noted ACK, in the order noted. When {@code holdRanOut} (the hold time is up at {@code t}), it also
     * tells each responder whose ACK was held while its requester sent nothing for seven eighths of the hold
     * ({@link NotedAck}): that requester may be waiting for this very ACK before it sends again, and holding its next
     * ACKs would stall it each time. (A ping-pong's requests come every few µs; the host's disturbances leave gaps of
     * 20-50 µs between some, which half the hold took for stalls.)
     */
    private void sendAll(boolean holdRanOut, long t) {
        int n = count;
        count = 0;
        for (int i = 0; i < n; i++) {
            Responder r = pending[i];
            pending[i] = null;
            r.sendDeferredAck(holdRanOut && r.mayHoldAck() && t - r.lastNotedAt() >= holdNanos - holdNanos / 8);
        }
    }
}
