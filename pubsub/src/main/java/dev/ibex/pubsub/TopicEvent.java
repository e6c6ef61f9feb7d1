package dev.ibex.pubsub;

import java.time.Duration;

/**
 * Something a subscriber noticed about its membership or its publisher, as {@link TopicSubscriber#events()} emits it.
 *
 * @param kind     what happened
 * @param topic    the topic's name
 * @param epoch    the publisher epoch concerned (0: none heard)
 * @param sequence {@link Kind#GAP}: the first missing number; {@link Kind#CLOSED}: the last one sent; otherwise the
 *                 highest number known when it happened
 * @param count    {@link Kind#GAP}: how many numbers are missing; {@link Kind#JOINED}: joins so far; else 0
 * @param elapsed  {@link Kind#JOINED}: how long the join took; {@link Kind#SILENT}: how long nothing was heard;
 *                 else {@link Duration#ZERO}
 */
public record TopicEvent(Kind kind, String topic, long epoch, long sequence, long count, Duration elapsed) {

    /** The kinds of event. */
    public enum Kind {
        /** The subscriber joined the topic's group. */
        JOINED,
        /** The subscriber left the group (stats are kept; join again to continue). */
        LEFT,
        /** The first frame from a publisher since joining. */
        HEARD,
        /** Messages are missing: lost on the way (UD does not retransmit), or revealed by a heartbeat (tail loss). */
        GAP,
        /** Nothing heard for longer than the silence bound (or nothing at all since joining). */
        SILENT,
        /** Frames arrive again from the publisher that was silent. */
        RESUMED,
        /** A new publisher epoch: the publisher restarted (its numbers start again at 1). */
        RESTARTED,
        /** The publisher closed. */
        CLOSED
    }

    @Override
    public String toString() {
        String e = epoch == 0 ? "" : " (epoch " + Long.toHexString(epoch) + ")";
        return topic + ": " + switch (kind) {
            case JOINED -> "joined in " + millis(elapsed) + (count > 1 ? " (join " + count + ")" : "");
            case LEFT -> "left at #" + sequence + e;
            case HEARD -> "publisher heard at #" + sequence + e;
            case GAP -> count + " missing from #" + sequence + e;
            case SILENT -> (epoch == 0 ? "no publisher heard for " : "publisher silent for ") + millis(elapsed)
                    + (epoch == 0 ? "" : " after #" + sequence + e);
            case RESUMED -> "publisher resumed at #" + sequence + e;
            case RESTARTED -> "publisher restarted" + e;
            case CLOSED -> "publisher closed after #" + sequence + e;
        };
    }

    private static String millis(Duration d) {
        return String.format(java.util.Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }
}
