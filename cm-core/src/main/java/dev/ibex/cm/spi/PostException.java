package dev.ibex.cm.spi;

import dev.ibex.cm.RdmaException;

/**
 * A post of a WR chain stopped at WR {@link #failedIndex()} ({@code bad_wr}): WRs before it were posted, it and
 * the ones after it were not.
 */
public class PostException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final int failedIndex;

    public PostException(String verb, int errno, int failedIndex, String advice) {
        super(verb, errno, "work request " + failedIndex + " was not posted" + (advice.isEmpty() ? "" : "; " + advice));
        this.failedIndex = failedIndex;
    }

    public int failedIndex() {
        return failedIndex;
    }
}
