package dev.ibex.softroce.transport;

import java.util.function.BooleanSupplier;

/**
 * Reception run by a {@link SoftPoller}'s own thread — run to completion: the event loop that polls reads the device
 * links' sockets itself, so a packet is parsed, processed by its QP, completed into its CQ and the completion handled
 * by the connection on one thread, with no hand-off between a receive thread and the loop. The network layer
 * implements it (a selector over the links' sockets); the poller only calls it.
 *
 * <p><b>Threading.</b> {@link #receiveNow} and {@link #await} on the polling thread only; {@link #wake} and
 * {@link #close} from any thread.
 */
public interface InlineReception {

    /**
     * Reads and processes, on the calling thread, what the links hold now; never blocks. While the loop keeps up
     * (the links were found empty lately), it may stop after a datagram that made {@code handOff} true — a completion
     * for the loop to hand to its application — and leave the rest for the next call, so that the reply the
     * application sends leaves before the loop reads on.
     *
     * @param handOff whether the loop has work to hand on now (a source of its poller is ready)
     * @return how many datagrams were read
     */
    int receiveNow(BooleanSupplier handOff);

    /**
     * Blocks until a link is readable, {@link #wake} is called or {@code timeoutNanos} passed (negative: no
     * timeout). Reads nothing, unless {@link #readsWhileWaiting}: then it sleeps in a read and processes the one datagram
     * that ends it.
     *
     * @param timeoutNanos the longest wait, or a negative value to wait without a timeout
     * @return how many datagrams it read (0 unless {@link #readsWhileWaiting})
     */
    int await(long timeoutNanos);

    /**
     * Whether {@link #await} sleeps in a read of the links, so that the poller need not read them before it waits,
     * nor after.
     *
     * @return whether waiting reads
     */
    default boolean readsWhileWaiting() {
        return false;
    }

    /**
     * How late the thread woke for what ended the last {@link #await}'s sleep: from the moment the datagram (or wake-up)
     * reached the link to the moment the read returned it — the part of a sleep that no spin would have had to wait
     * ({@code IdleSpin}). Known only where the wait sleeps in a read ({@link #readsWhileWaiting}).
     *
     * @return the lag in ns; 0 when the wait slept but read nothing or the lag is not known; -1 when the last
     *     {@link #await} did not sleep
     */
    default long wakeLagNanos() {
        return -1;
    }

    /**
     * Whether the last read stopped at work to hand on while datagrams may be waiting behind it: {@link #receiveNow}
     * returned at {@code handOff}, or {@link #await} found its datagram there already, and the reception still reads
     * one datagram at a time (it is not behind a stream). The poller then leaves the ACKs it noted for the next read:
     * the rest of a burst — a message of several, sent in one call — is likely there, and one ACK then covers it.
     *
     * @return whether more datagrams may wait; {@code false} when the last read found the links empty or slept
     */
    default boolean readingBehind() {
        return false;
    }

    /** Ends a current or the next {@link #await} at once. */
    void wake();

    /** Gives the links back to their own receive threads. */
    void close();
}
