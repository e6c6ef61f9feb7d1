package dev.ibex.cm.spi;

/**
 * Bytes that are not a valid tag-matching header ({@link TagMatchingHeader}, {@link RendezvousHeader}): too short,
 * an unknown operation or non-zero reserved bytes. Nothing was read past the bytes given.
 */
public final class TmHeaderException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * A decoding refusal.
     *
     * @param message what is wrong with the bytes
     */
    public TmHeaderException(String message) {
        super(message);
    }
}
