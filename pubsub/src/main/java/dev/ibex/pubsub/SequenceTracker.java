package dev.ibex.pubsub;

/**
 * One subscriber's account of one publisher epoch's sequence numbers: what arrived in order, what is missing
 * (lost), what arrived twice (duplicate, not delivered again), late (out of order: it had been counted lost and is
 * not any more) or too old to tell (stale, not delivered). A bitmap of the last {@value #WINDOW} numbers tells a late
 * arrival from a duplicate; nothing is allocated per message.
 *
 * <p>Counting starts at a baseline: the first frame heard after a join (a heartbeat's "last sent" number, or a
 * message's number minus one) or 0 when the epoch started while this subscriber listened. Numbers at or below the
 * baseline were sent before the subscriber could hear them: they are neither lost nor delivered. When the
 * subscriber comes back to the epoch it left, the numbers it was away for are counted apart ({@code missedWhileAway}).
 *
 * <p>Confined to the subscriber's event loop; the counters are volatile so {@code stats()} may read them anywhere.
 */
final class SequenceTracker {
    static final int WINDOW = 4096;
    private static final int WORDS = WINDOW / 64;

    /** What to do with one DATA frame. */
    enum Verdict { DELIVER, DUPLICATE, STALE }

    private final long[] seen = new long[WORDS];
    private boolean synced;
    private long floor;     // the baseline: numbers <= floor are before this subscriber's time
    private long leftAt = -1; // highest when the subscriber left this epoch (-1: not left, or another epoch)
    private long lastGap;   // how many numbers the last frame revealed as missing

    /** The highest number known to have been sent (received, or announced by a heartbeat). */
    volatile long highest;
    volatile long received;
    volatile long lost;
    volatile long duplicates;
    volatile long outOfOrder;
    volatile long stale;
    volatile long missedWhileAway;

    /** The subscriber (re)joined: the next frame sets the baseline. */
    void join() {
        synced = false;
    }

    /** The subscriber left: remember where, so a return to this epoch can tell what it was away for. */
    void leave() {
        leftAt = synced ? highest : leftAt;
        synced = false;
    }

    /**
     * A new epoch (not the first heard): forget the old one's numbers. {@code fromStart}: the subscriber was
     * listening when it began, so its numbers count from 1; else from the first frame heard, the ones before it
     * being missed while away.
     */
    void newEpoch(boolean fromStart) {
        if (fromStart) {
            leftAt = -1;
            sync(0, 0);
        } else {
            leftAt = 0; // the subscriber was away when it began: what precedes its first frame was missed, not lost
            synced = false;
        }
    }

    boolean isSynced() {
        return synced;
    }

    /** How many numbers the last frame revealed as missing (0: none). */
    long lastGap() {
        return lastGap;
    }

    Verdict onData(long seq) {
        lastGap = 0;
        if (!synced) {
            sync(seq - 1, seq - 1);
        }
        if (seq <= floor) {
            stale++;
            return Verdict.STALE;
        }
        if (seq > highest) {
            advance(seq);
            mark(seq);
            received++;
            return Verdict.DELIVER;
        }
        if (highest - seq >= WINDOW) {
            stale++;
            return Verdict.STALE;
        }
        if (isMarked(seq)) {
            duplicates++;
            return Verdict.DUPLICATE;
        }
        mark(seq);
        lost--;
        outOfOrder++;
        received++;
        return Verdict.DELIVER;
    }

    /** A heartbeat or close: everything up to {@code lastSent} was sent. */
    void onHeartbeat(long lastSent) {
        lastGap = 0;
        if (!synced) {
            sync(lastSent, lastSent);
            return;
        }
        if (lastSent > highest) {
            advance(lastSent + 1);
            highest = lastSent; // advance() counted through lastSent as missing; nothing was received there
        }
    }

    private void sync(long baseline, long announced) {
        if (leftAt >= 0 && baseline > leftAt) {
            missedWhileAway += baseline - leftAt;
        }
        leftAt = -1;
        synced = true;
        floor = baseline;
        highest = announced;
        java.util.Arrays.fill(seen, 0);
    }

    /** Moves the top to {@code seq}: the numbers between the old top and it are missing (lost). */
    private void advance(long seq) {
        long gap = seq - highest - 1;
        if (gap > 0) {
            lost += gap;
            lastGap = gap;
            if (gap >= WINDOW) {
                java.util.Arrays.fill(seen, 0);
            } else {
                for (long s = highest + 1; s < seq; s++) {
                    clear(s);
                }
            }
        }
        highest = seq;
    }

    private void mark(long seq) {
        int bit = (int) (seq & (WINDOW - 1));
        seen[bit >>> 6] |= 1L << bit;
    }

    private void clear(long seq) {
        int bit = (int) (seq & (WINDOW - 1));
        seen[bit >>> 6] &= ~(1L << bit);
    }

    private boolean isMarked(long seq) {
        int bit = (int) (seq & (WINDOW - 1));
        return (seen[bit >>> 6] & (1L << bit)) != 0;
    }
}
