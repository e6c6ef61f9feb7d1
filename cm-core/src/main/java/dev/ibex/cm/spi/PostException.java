package dev.ibex.cm.spi;

import dev.ibex.cm.RdmaException;

/**
 * A post of a WR chain stopped at WR {@link #failedIndex()} ({@code bad_wr}): WRs before it were posted, it and
 * the ones after it were not.
 */
public class PostException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The index of the first WR not posted. */
    private final int failedIndex;

    /**
     * A post that stopped at WR {@code failedIndex}.
     *
     * @param verb the verb, e.g. {@code "ibv_post_send"}
     * @param errno the errno it reported
     * @param failedIndex the index of the first WR not posted
     * @param advice what the user can do about it; may be empty, not {@code null}
     */
    public PostException(String verb, int errno, int failedIndex, String advice) {
        super(verb, errno, "work request " + failedIndex + " was not posted" + (advice.isEmpty() ? "" : "; " + advice));
        this.failedIndex = failedIndex;
    }

    /** {@return the index of the first WR not posted ({@code bad_wr}); those before it were posted} */
    public int failedIndex() {
        return failedIndex;
    }
}
