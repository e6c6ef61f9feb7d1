package dev.ibex.pubsub;

/**
 * A message larger than one datagram can carry ({@link TopicPublisher#maxPayload()}: the path MTU less the header),
 * refused before anything was posted — UD does not fragment, and a NIC (rxe, soft-roce) completes an oversize UD
 * send without sending it.
 */
public final class PayloadTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The name of the topic the message was published on. */
    private final String topic;
    /** The refused payload's size, in bytes. */
    private final long size;
    /** The largest payload the topic's publisher could send, in bytes. */
    private final int maxPayload;

    PayloadTooLargeException(String topic, long size, int maxPayload) {
        super("a message of " + size + " bytes does not fit one datagram on topic " + topic + ": at most "
                + maxPayload + " bytes (the path MTU less the " + FrameHeader.LENGTH + "-byte header)");
        this.topic = topic;
        this.size = size;
        this.maxPayload = maxPayload;
    }

    /**
     * The topic the message was published on.
     *
     * @return the topic's name
     */
    public String topic() {
        return topic;
    }

    /**
     * The refused payload's size.
     *
     * @return the size in bytes (the header not included)
     */
    public long size() {
        return size;
    }

    /**
     * What fitted: {@link TopicPublisher#maxPayload()} of the publisher that refused the message.
     *
     * @return the largest payload in bytes
     */
    public int maxPayload() {
        return maxPayload;
    }
}
