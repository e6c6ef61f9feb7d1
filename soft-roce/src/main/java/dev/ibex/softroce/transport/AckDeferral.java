package dev.ibex.softroce.transport;

import java.util.Arrays;

/**
 * ACK coalescing for a loop that receives its own packets ({@link InlineReception}): while the loop reads a batch of
 * packets, a responder does not send the ACK a request asked for but notes it here; the loop sends the noted ACKs
 * once its handlers ran (at its next poll) or before it blocks. One ACK then acknowledges every request the batch
 * held (the IBA lets a responder coalesce: an ACK covers all requests up to its PSN), and it leaves after the
 * application's reply, so the peer wakes once for both. NAKs, RNR NAKs, READ responses and atomic ACKs are never
 * deferred. An ACK waits at most one turn of the loop — far below any retransmission timeout.
 *
 * <p><b>Threading.</b> Confined to the polling thread it was installed on; a responder notes its ACK only from
 * inside its QP's task on that thread.
 */
public final class AckDeferral {
    private static final ThreadLocal<AckDeferral> CURRENT = new ThreadLocal<>();

    private Responder[] pending = new Responder[8];
    private int count;
    private boolean reading;

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
        pending[count++] = r;
    }

    /** Sends every noted ACK, in the order noted. */
    void flush() {
        int n = count;
        if (n == 0) {
            return;
        }
        count = 0;
        for (int i = 0; i < n; i++) {
            Responder r = pending[i];
            pending[i] = null;
            r.sendDeferredAck();
        }
    }
}
