package dev.ibex.cm.endpoint;

/**
 * A message longer than the connection allows: the smaller of this end's and the peer's
 * {@link ConnectionOptions#maxMessageSize()}, or one buffer when the peer reassembles none (a C program, an end in
 * {@link ReceiveMode#WINDOW}). Thrown before anything is posted; the message's buffers stay the caller's.
 */
public final class MessageTooLargeException extends IllegalArgumentException {
    private final long size;
    private final long limit;

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
