package dev.ibex.cm.loop;

import dev.ibex.cm.spi.CompletionQueue;

/**
 * A loop's bookkeeping for one CQ it reads: notifications taken but not yet acknowledged (acked in batches and
 * always before the CQ is destroyed), whether it waits in the loop's ready ring, and for a shared CQ its
 * reservations and how long it has had none. Loop-confined.
 */
final class WatchedCq {
    final CompletionQueue cq;
    final LoopDevice device;
    int unacked;
    boolean queued;
    /** Entries promised to QPs (shared CQs only). */
    int reserved;
    /** QPs holding a reservation (shared CQs only); an idle CQ has none. */
    int qps;
    /** A reservation was made since the last idle check ({@link LoopDevice#trimCqs}). */
    boolean touched;
    /** Seen without QPs and untouched by the idle check since {@link #idleSince}. */
    boolean idle;
    long idleSince;
    final boolean shared;
    boolean closed;
    /** Whether the next completion raises an event; false after a notification on a loop that spins on its CQs. */
    boolean armed = true;

    WatchedCq(CompletionQueue cq, LoopDevice device, boolean shared) {
        this.cq = cq;
        this.device = device;
        this.shared = shared;
        cq.context(this);
    }

    /**
     * A notification arrived: count it, ack a full batch, and re-arm (before polling, so nothing is missed) unless the
     * loop spins on its CQs — then the CQ stays unarmed, raising no event per completion, until the loop re-arms it
     * before it blocks ({@link #rearm}).
     */
    void notified(int ackBatch, boolean rearm) {
        if (++unacked >= ackBatch) {
            cq.ackEvents(unacked);
            unacked = 0;
        }
        if (rearm) {
            cq.requestNotify(false);
        } else {
            armed = false;
        }
    }

    /** Arms the CQ again if a notification left it unarmed; {@return whether it did} (the caller then polls once). */
    boolean rearm() {
        if (armed || closed) {
            return false;
        }
        cq.requestNotify(false);
        armed = true;
        return true;
    }

    /** Settles outstanding notifications and destroys the CQ. */
    void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        if (unacked > 0) {
            cq.ackEvents(unacked);
            unacked = 0;
        }
        cq.close();
    }
}
