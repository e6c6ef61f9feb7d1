package dev.ibex.cm.endpoint;

import java.time.Duration;

/**
 * How a {@link Datagram} runs.
 *
 * @param receiveWindow receives kept posted (each buffer holds the 40-byte GRH plus a payload)
 * @param sendQueueDepth {@code max_send_wr}
 * @param maxInline the largest datagram sent inline
 * @param signalInterval at most this many sends unsignaled in a row
 * @param resolveTimeoutMs timeout passed to address and route resolution
 * @param deadline how long a SIDR resolution or a multicast join may take
 * @param listen answer SIDR requests (the passive UD side)
 * @param backlog {@code rdma_listen} backlog when listening
 * @param requestTimeout how long a SIDR request may wait for accept/reject
 */
public record DatagramOptions(int receiveWindow, int sendQueueDepth, int maxInline, int signalInterval,
        int resolveTimeoutMs, Duration deadline, boolean listen, int backlog, Duration requestTimeout) {

    /** 64 receives, 128 send slots, 64 B inline, 10 s deadlines, not listening for SIDR requests. */
    public static final DatagramOptions DEFAULT = new DatagramOptions(64, 128, 64, 16, 2000, Duration.ofSeconds(10),
            false, 128, Duration.ofSeconds(10));

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException when a count or duration is not positive (or {@code maxInline} is negative)
     */
    public DatagramOptions {
        if (receiveWindow <= 0 || sendQueueDepth <= 0 || maxInline < 0 || signalInterval <= 0 || resolveTimeoutMs <= 0
                || backlog <= 0 || deadline == null || deadline.isNegative() || deadline.isZero()
                || requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("datagram options must be positive");
        }
    }

    /**
     * A copy that does or does not answer SIDR requests (the passive UD side).
     *
     * @param on whether to answer SIDR requests
     * @return the new options
     */
    public DatagramOptions withListen(boolean on) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs,
                deadline, on, backlog, requestTimeout);
    }

    /**
     * A copy with another receive window.
     *
     * @param n receives kept posted, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code n} is not positive
     */
    public DatagramOptions withReceiveWindow(int n) {
        return new DatagramOptions(n, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs, deadline, listen,
                backlog, requestTimeout);
    }

    /**
     * A copy with another deadline for resolutions and joins.
     *
     * @param d how long a SIDR resolution or a multicast join may take, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is null or not positive
     */
    public DatagramOptions withDeadline(Duration d) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs, d,
                listen, backlog, requestTimeout);
    }

    /**
     * A copy with another request timeout.
     *
     * @param d how long a SIDR request may wait for an answer, positive
     * @return the new options
     * @throws IllegalArgumentException when {@code d} is null or not positive
     */
    public DatagramOptions withRequestTimeout(Duration d) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs,
                deadline, listen, backlog, d);
    }
}
