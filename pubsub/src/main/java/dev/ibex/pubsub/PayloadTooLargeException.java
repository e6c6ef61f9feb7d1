package dev.ibex.pubsub;

/**
 * A message larger than one datagram can carry ({@link TopicPublisher#maxPayload()}: the path MTU less the header),
 * refused before anything was posted — UD does not fragment, and a NIC (rxe, soft-roce) completes an oversize UD
 * send without sending it.
 */
public final class PayloadTooLargeException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final long size;
    private final int maxPayload;

    PayloadTooLargeException(String topic, long size, int maxPayload) {
        super("a message of " + size + " bytes does not fit one datagram on topic " + topic + ": at most "
                + maxPayload + " bytes (the path MTU less the " + FrameHeader.LENGTH + "-byte header)");
        this.topic = topic;
        this.size = size;
        this.maxPayload = maxPayload;
    }

    public String topic() {
        return topic;
    }

    public long size() {
        return size;
    }

    public int maxPayload() {
        return maxPayload;
    }
}
