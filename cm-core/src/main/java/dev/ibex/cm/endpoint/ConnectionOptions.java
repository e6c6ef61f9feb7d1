package dev.ibex.cm.endpoint;

import java.time.Duration;

/**
 * How a {@link Connection} is set up and run.
 *
 * @param connectTimeout deadline from {@code connect} (or from {@code accept}) to ESTABLISHED
 * @param resolveTimeoutMs timeout passed to {@code rdma_resolve_addr}/{@code rdma_resolve_route}
 * @param sendQueueDepth {@code max_send_wr}: operations outstanding at once (writability is derived from it)
 * @param receiveWindow receives kept posted (each holds one pool buffer); bounds what the peer may send ahead
 * @param maxInline the largest SEND/WRITE carried inline (asked of the QP; lowered if the device refuses)
 * @param signalInterval at most this many work requests go unsignaled in a row (the last of each batch is signaled)
 * @param responderResources incoming RDMA READ/atomics served at once (clamped to the device)
 * @param initiatorDepth outgoing RDMA READ/atomics outstanding at once (clamped to the device and the peer)
 * @param retryCount transport retries (0..7)
 * @param rnrRetryCount RNR retries (0..7, 7 = forever: a sender waits until the receiver posts a receive)
 * @param drainTimeout how long a closing connection waits for its flushed work before releasing anyway
 * @param rearmAfterMigration after a path migration, load the former primary path as the new alternate
 * @param minRnrTimer the RNR NAK delay this side asks a sender to wait when no receive is posted (IBA encoding
 *     1..31: 1 = 0.01 ms, 12 = 0.64 ms, 14 = 1.28 ms; 0 = 655 ms), loaded once the connection is ESTABLISHED
 *     because the CM's RTR attributes say 0; -1 keeps the CM's value. Receive credits follow demand, so this is
 *     how soon a stalled sender retries after the receiver catches up.
 */
public record ConnectionOptions(Duration connectTimeout, int resolveTimeoutMs, int sendQueueDepth, int receiveWindow,
        int maxInline, int signalInterval, int responderResources, int initiatorDepth, int retryCount,
        int rnrRetryCount, Duration drainTimeout, boolean rearmAfterMigration, int minRnrTimer) {

    public static final ConnectionOptions DEFAULT = new ConnectionOptions(Duration.ofSeconds(10), 2000, 128, 64, 64, 16,
            4, 4, 7, 7, Duration.ofSeconds(2), false, 12);

    public ConnectionOptions {
        if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero() || drainTimeout == null
                || drainTimeout.isNegative()) {
            throw new IllegalArgumentException("connectTimeout must be positive and drainTimeout not negative");
        }
        if (resolveTimeoutMs <= 0 || sendQueueDepth <= 0 || receiveWindow <= 0 || maxInline < 0 || signalInterval <= 0
                || responderResources < 0 || initiatorDepth < 0) {
            throw new IllegalArgumentException("timeouts, queue depths, window and signal interval must be positive; "
                    + "inline size and RDMA depths not negative");
        }
        if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
            throw new IllegalArgumentException("retry counts are 3-bit values (0..7)");
        }
        if (minRnrTimer < -1 || minRnrTimer > 31) {
            throw new IllegalArgumentException("minRnrTimer is a 5-bit IBA code (0..31), or -1 to keep the CM's");
        }
    }

    public ConnectionOptions withConnectTimeout(Duration d) {
        return new ConnectionOptions(d, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline, signalInterval,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withSendQueueDepth(int n) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, n, receiveWindow, maxInline, signalInterval,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withReceiveWindow(int n) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, n, maxInline, signalInterval,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withMaxInline(int n) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, n, signalInterval,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withSignalInterval(int n) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline, n,
                responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withRdmaDepth(int responder, int initiator) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline,
                signalInterval, responder, initiator, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withDrainTimeout(Duration d) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline,
                signalInterval, responderResources, initiatorDepth, retryCount, rnrRetryCount, d,
                rearmAfterMigration, minRnrTimer);
    }

    public ConnectionOptions withRearmAfterMigration(boolean on) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline,
                signalInterval, responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                on, minRnrTimer);
    }

    public ConnectionOptions withMinRnrTimer(int code) {
        return new ConnectionOptions(connectTimeout, resolveTimeoutMs, sendQueueDepth, receiveWindow, maxInline,
                signalInterval, responderResources, initiatorDepth, retryCount, rnrRetryCount, drainTimeout,
                rearmAfterMigration, code);
    }
}
