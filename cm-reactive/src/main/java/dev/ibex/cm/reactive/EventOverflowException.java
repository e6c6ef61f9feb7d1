package dev.ibex.cm.reactive;

/**
 * A subscriber of an event stream ({@link RdmaCmChannel#events()}, {@link RdmaDeviceEvents}) fell more than
 * {@link #capacity()} events behind its demand. The stream ends for that subscriber only, with this error; the
 * events themselves were already copied and acknowledged, so the ids, QPs and CQs they concern went on working and
 * nothing waits for the subscriber. Subscribe again (and request more, or offload with {@code publishOn}) to resume.
 */
public final class EventOverflowException extends IllegalStateException {
    /** The name of the stream that overflowed. */
    private final String stream;
    /** The subscriber's buffer size, in events. */
    private final int capacity;

    EventOverflowException(String stream, int capacity) {
        super("a subscriber of " + stream + " did not keep up: more than " + capacity
                + " events were not requested (the stream ended for it; nothing else was held up)");
        this.stream = stream;
        this.capacity = capacity;
    }

    /**
     * The stream that overflowed (e.g. {@code "CM events of channel cm-1"}).
     *
     * @return the stream's name, for messages and logs
     */
    public String stream() {
        return stream;
    }

    /**
     * How many unrequested events the subscriber's buffer held.
     *
     * @return the buffer's capacity in events
     */
    public int capacity() {
        return capacity;
    }
}
