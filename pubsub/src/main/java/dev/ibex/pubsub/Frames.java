package dev.ibex.pubsub;

import java.lang.foreign.MemorySegment;

/**
 * Reading pub/sub frames from outside the library — fault rules that drop chosen messages, capture tools — without
 * depending on the header's layout (which {@code FrameHeader} documents). Stateless.
 */
public final class Frames {
    /** The header in front of every payload. */
    public static final int HEADER_LENGTH = FrameHeader.LENGTH;

    private Frames() {}

    /**
     * The sequence number of {@code frame} ({@code length} bytes) if it is a message of {@code topic}, else -1.
     *
     * @param frame  a received datagram's bytes, header first (as {@code DatagramMessage.payload()} gives them)
     * @param length how many bytes of {@code frame} the datagram filled
     * @param topic  the topic to match
     * @return the message's sequence number in its epoch (from 1), or -1 for a heartbeat, a close frame, another
     *     topic's
     * message or bytes that are not a pub/sub frame
     */
    public static long messageSequence(MemorySegment frame, long length, Topic topic) {
        if (length < HEADER_LENGTH || length > Integer.MAX_VALUE
                || FrameHeader.kind(frame, (int) length) != FrameKind.DATA
                || FrameHeader.topic(frame) != topic.id()) {
            return -1;
        }
        return FrameHeader.sequence(frame);
    }
}
