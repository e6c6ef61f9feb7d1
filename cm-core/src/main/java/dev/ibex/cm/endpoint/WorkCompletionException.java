package dev.ibex.cm.endpoint;

import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.WcStatus;

/**
 * An operation that completed with an error status (the verb is the one that posted it: the poll itself worked). {@link #isFlush()} marks the expected flush of work that was
 * outstanding when the connection closed or failed, as opposed to a failure of the operation itself.
 */
public final class WorkCompletionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The failed operation, or {@code null} for a receive. */
    private final Operation operation;
    /** The completion's status. */
    private final WcStatus status;
    /** The device's vendor syndrome, 0 when none. */
    private final int vendorError;

    /**
     * A completion with an error status; the message names the operation, the status and its meaning.
     *
     * @param operation the failed operation, or {@code null} for a receive
     * @param status the completion's status
     * @param vendorError the device's vendor syndrome, 0 when none
     */
    public WorkCompletionException(Operation operation, WcStatus status, int vendorError) {
        super(operation == null ? "ibv_post_recv" : "ibv_post_send", (operation == null ? "a receive" : operation.name())
                + " completed with " + status + " (work completion status " + status.code() + "): "
                + status.description() + (vendorError != 0 ? " (vendor error 0x" + Integer.toHexString(vendorError)
                + ")" : ""), null);
        this.operation = operation;
        this.status = status;
        this.vendorError = vendorError;
    }

    /** {@return the operation, or {@code null} for a receive} */
    public Operation operation() {
        return operation;
    }

    /** {@return the completion's status} */
    public WcStatus status() {
        return status;
    }

    /** {@return the device's vendor error syndrome, 0 when none} */
    public int vendorError() {
        return vendorError;
    }

    /**
     * {@return whether the status is {@code WR_FLUSH_ERR}: the work was flushed because the QP left RTS (close,
     * disconnect, earlier error)}
     */
    public boolean isFlush() {
        return status == WcStatus.WR_FLUSH_ERR;
    }
}
