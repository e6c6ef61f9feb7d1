package dev.ibex.pubsub;

/** What a subscriber observes about its publisher: the inputs of {@link LivenessTable}. */
enum Observation {
    /** The subscriber joined its group. */
    JOIN,
    /** The subscriber left (or lost) its group. */
    LEAVE,
    /** The first message or heartbeat heard since joining. */
    FIRST_FRAME,
    /** A later message or heartbeat of the current epoch. */
    FRAME,
    /** A frame of another epoch than the one followed: the publisher restarted. */
    NEW_EPOCH,
    /** The publisher's CLOSE frame. */
    CLOSE,
    /** Nothing heard for longer than the silence bound (a timer on the subscriber's loop). */
    QUIET
}
