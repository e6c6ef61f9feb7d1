package dev.ibex.cm.endpoint;

/**
 * A message longer than the connection allows: the smaller of this end's and the peer's
 * {@link ConnectionOptions#maxMessageSize()}, or one buffer when the peer reassembles none (a C program, an end in
 * {@link ReceiveMode#WINDOW}). Thrown before anything is posted; the message's buffers stay the caller's.
 */
public final class MessageTooLargeException extends IllegalArgumentException {
    /** The message's length in bytes. */
    private final long size;
    /** The limit in bytes. */
    private final long limit;

    /**
     * A message of {@code size} bytes refused for exceeding {@code limit}.
     *
     * @param size the message's length in bytes
     * @param limit the most the connection sends in one message
     * @param why which limit applies, for the message
     */
    public MessageTooLargeException(long size, long limit, String why) {
        super("a message of " + size + " bytes exceeds the limit of " + limit + " bytes: " + why);
        this.size = size;
        this.limit = limit;
    }

    /** {@return the message's length} */
    public long size() {
        return size;
    }

    /** {@return the most this connection sends in one message} */
    public long limit() {
        return limit;
    }
}
