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

    public static final DatagramOptions DEFAULT = new DatagramOptions(64, 128, 64, 16, 2000, Duration.ofSeconds(10),
            false, 128, Duration.ofSeconds(10));

    public DatagramOptions {
        if (receiveWindow <= 0 || sendQueueDepth <= 0 || maxInline < 0 || signalInterval <= 0 || resolveTimeoutMs <= 0
                || backlog <= 0 || deadline == null || deadline.isNegative() || deadline.isZero()
                || requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("datagram options must be positive");
        }
    }

    public DatagramOptions withListen(boolean on) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs,
                deadline, on, backlog, requestTimeout);
    }

    public DatagramOptions withReceiveWindow(int n) {
        return new DatagramOptions(n, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs, deadline, listen,
                backlog, requestTimeout);
    }

    public DatagramOptions withDeadline(Duration d) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs, d,
                listen, backlog, requestTimeout);
    }

    public DatagramOptions withRequestTimeout(Duration d) {
        return new DatagramOptions(receiveWindow, sendQueueDepth, maxInline, signalInterval, resolveTimeoutMs,
                deadline, listen, backlog, d);
    }
}
