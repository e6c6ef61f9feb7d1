package dev.ibex.rsocket;

/**
 * The peer sent something that is not a well-formed stream of RSocket frames over Ibex messages (see
 * {@link MessageFraming}) or a transport handshake this side does not understand. The connection is closed; its
 * {@code onClose()} and the RSocket built on it fail with this error.
 */
public class FramingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A framing error.
     *
     * @param message what was wrong with the peer's frames or handshake
     */
    public FramingException(String message) {
        super(message);
    }
}
