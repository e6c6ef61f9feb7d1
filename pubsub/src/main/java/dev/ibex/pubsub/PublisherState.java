package dev.ibex.pubsub;

/** What a subscriber knows of its topic's publisher; {@link SubscriberStats#publisher()}. */
public enum PublisherState {
    /** The subscriber is not joined (before its first join, or after a leave). */
    AWAY,
    /** Joined, and nothing heard from a publisher yet. */
    UNHEARD,
    /** Frames arrive (messages or heartbeats) within the silence bound. */
    LIVE,
    /**
     * Nothing for longer than the silence bound: the publisher stopped without saying so (crash, kill, network), or
     * none has been heard since joining.
     */
    SILENT,
    /** The publisher said it closed; nothing follows its last sequence number. */
    CLOSED
}
