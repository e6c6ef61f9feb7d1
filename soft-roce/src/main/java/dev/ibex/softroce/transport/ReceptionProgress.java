package dev.ibex.softroce.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the fabric's own reception is keeping up, for the retransmit timer. When an event loop reads the devices'
 * sockets ({@link InlineReception}), a loop busy with other work (a burst of connection setups on a cold JVM, a
 * loaded machine) leaves datagrams unread in the socket for a while, and the retransmit timer, which fires on its own
 * thread, would take the peer's ACK waiting there for a lost packet: resend, use up {@code retry_cnt} and, after
 * {@code retry_cnt} such expiries, fail a healthy connection with {@code RETRY_EXC_ERR}. A NIC never falls behind its
 * own wire like that. So an expiry is not counted while the loop has not found its sockets empty since the timer
 * fired ({@link #behindSince}); the sender looks again a little later ({@code Sender}, a bounded number of times, so
 * that a flooded socket cannot hide a dead peer for long).
 *
 * <p><b>Threading.</b> {@link #drained}, {@link #waiting} and {@link #lent} by the thread that receives (one at a time,
 * ordered by the hand-over of the sockets); {@link #mark} and {@link #behindSince} from any thread.
 */
public final class ReceptionProgress {
    /** Times the receiving loop found every socket empty (single writer: release stores, no fence per turn). */
    private final AtomicLong drains = new AtomicLong();
    /** The receiving loop is blocked waiting for a datagram: nothing is unread. */
    private volatile boolean waiting;
    /** An event loop reads the sockets; receive threads of their own (the default otherwise) are never behind. */
    private volatile boolean onLoop;

    /** The polling thread found every socket empty. */
    public void drained() {
        drains.setRelease(drains.getPlain() + 1);
    }

    /**
     * The polling thread blocks waiting for a datagram ({@code true}) or is back ({@code false}).
     *
     * @param now whether it waits
     */
    public void waiting(boolean now) {
        waiting = now;
    }

    /**
     * An event loop takes the sockets ({@code true}) or gives them back to their receive threads ({@code false}).
     *
     * @param toLoop whether a loop reads them from now on
     */
    public void lent(boolean toLoop) {
        onLoop = toLoop;
        waiting = false;
    }

    /** {@return a mark to pass to {@link #behindSince} later: how often the sockets were found empty so far} */
    public long mark() {
        return drains.getAcquire();
    }

    /**
     * Whether a datagram that arrived before {@code mark} was taken may still sit unread: a loop reads the sockets,
     * has not found them empty since, and is not waiting for more.
     *
     * @param mark what {@link #mark} returned then
     * @return whether the reception may be behind
     */
    public boolean behindSince(long mark) {
        return onLoop && !waiting && drains.getAcquire() == mark;
    }
}
