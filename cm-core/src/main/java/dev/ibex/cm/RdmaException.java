package dev.ibex.cm;

import java.util.Objects;

/**
 * A failed RDMA operation: which verb failed, the errno it reported and a sentence a user can act on.
 *
 * <p>Unchecked, because nearly every RDMA call can fail and Reactor signals carry any {@link Throwable}.
 * Closed resources throw {@link IllegalStateException} and bad arguments {@link IllegalArgumentException}
 * instead; an {@code RdmaException} always means the provider (kernel, device or soft fabric) said no.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The verb that failed. */
    private final String verb;
    /** The errno's constant, or {@code null} when none. */
    private final Errno errno;
    /** The errno as a positive number, 0 when none. */
    private final int errnoValue;

    /**
     * A verb's refusal; the message reads "verb failed: ENAME (strerror text); advice".
     *
     * @param verb the C verb (or provider operation) that failed, e.g. {@code "rdma_create_event_channel"}
     * @param errnoValue the errno it reported (0 when it reported none)
     * @param advice what the user can do about it; may be empty
     */
    public RdmaException(String verb, int errnoValue, String advice) {
        this(verb, errnoValue, advice, null);
    }

    /**
     * A verb's refusal with its cause; the message reads "verb failed: ENAME (strerror text); advice".
     *
     * @param verb the C verb (or provider operation) that failed
     * @param errnoValue the errno it reported, positive or negated (0 when it reported none)
     * @param advice what the user can do about it; may be empty or {@code null}
     * @param cause the underlying failure, or {@code null}
     */
    public RdmaException(String verb, int errnoValue, String advice, Throwable cause) {
        super(format(verb, errnoValue, advice), cause);
        this.verb = Objects.requireNonNull(verb, "verb");
        this.errnoValue = Math.abs(errnoValue);
        this.errno = errnoValue == 0 ? null : Errno.of(errnoValue);
    }

    /**
     * For subclasses whose failure is not a verb's refusal (a work completion's status, a dead peer): the message
     * is used as is, with no errno.
     *
     * @param verb the operation that failed
     * @param message the whole message
     * @param cause the underlying failure, or {@code null}
     */
    protected RdmaException(String verb, String message, Throwable cause) {
        super(message, cause);
        this.verb = Objects.requireNonNull(verb, "verb");
        this.errnoValue = 0;
        this.errno = null;
    }

    /**
     * Convenience for a known {@link Errno}.
     *
     * @param verb the C verb (or provider operation) that failed
     * @param errno the errno it reported
     * @param advice what the user can do about it; may be empty
     */
    public RdmaException(String verb, Errno errno, String advice) {
        this(verb, errno.number(), advice, null);
    }

    private static String format(String verb, int errnoValue, String advice) {
        StringBuilder sb = new StringBuilder(verb).append(" failed");
        if (errnoValue != 0) {
            sb.append(": ").append(Errno.of(errnoValue).describe());
            if (Errno.of(errnoValue) == Errno.EUNKNOWN) {
                sb.append(" errno=").append(Math.abs(errnoValue));
            }
        }
        if (advice != null && !advice.isEmpty()) {
            sb.append("; ").append(advice);
        }
        return sb.toString();
    }

    /** {@return the verb that failed} */
    public String verb() {
        return verb;
    }

    /** {@return the errno, or {@code null} when the failure carried none} */
    public Errno errno() {
        return errno;
    }

    /** {@return the raw errno number (positive), 0 when none} */
    public int errnoValue() {
        return errnoValue;
    }
}
